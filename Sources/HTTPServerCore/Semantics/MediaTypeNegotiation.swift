import Foundation

/// `Accept` (RFC 9110 §12.5.1) for a resource with two representations: whether the field ranks one
/// media type above the other. No field, `*/*` or a tie keep the default (the other one), so
/// machines that send nothing or everything get what they always got.
public enum MediaTypeNegotiation {
    /// True only when `accept` gives `type/subtype` a positive quality above `otherType/otherSubtype`'s.
    /// Each type's quality is that of the most specific range that matches it (exact, `type/*`, `*/*`).
    public static func prefers(
        _ type: String, _ subtype: String, over otherType: String, _ otherSubtype: String,
        accept: String?
    ) -> Bool {
        guard let accept else { return false }
        var ranges: [(type: String, subtype: String, q: Double)] = []
        for item in accept.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let media = parts.first, let slash = media.firstIndex(of: "/") else { continue }
            var q = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                q = Double(parameter.dropFirst(2)).map { min(max($0, 0), 1) } ?? 0
            }
            ranges.append((String(media[..<slash]), String(media[media.index(after: slash)...]), q))
        }
        func quality(_ type: String, _ subtype: String) -> Double {
            if let exact = ranges.first(where: { $0.type == type && $0.subtype == subtype }) { return exact.q }
            if let group = ranges.first(where: { $0.type == type && $0.subtype == "*" }) { return group.q }
            return ranges.first(where: { $0.type == "*" && $0.subtype == "*" })?.q ?? 0
        }
        let wanted = quality(type, subtype)
        return wanted > 0 && wanted > quality(otherType, otherSubtype)
    }

    /// Whether a request for a page that is JSON by default wants its HTML rendering instead.
    public static func prefersHTMLOverJSON(accept: String?) -> Bool {
        prefers("text", "html", over: "application", "json", accept: accept)
    }
}
