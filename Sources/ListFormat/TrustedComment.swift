/// The trusted comment the origin signs with each manifest: `generation:<n>\texpires:<RFC 3339>`.
/// Only this line is covered by minisign's global signature, so a client reads the generation from
/// here and checks it against the manifest's own.
public struct TrustedComment: Equatable, Sendable {
    public var generation: Int?
    public var expires: String?

    public init(generation: Int?, expires: String?) {
        self.generation = generation
        self.expires = expires
    }

    /// Reads the fields from a comment of space- or tab-separated `name:value` parts; unknown parts
    /// are ignored, a field that is missing or not a number is nil.
    public init(parsing text: String) {
        generation = Self.field("generation", in: text).flatMap { Int($0) }
        expires = Self.field("expires", in: text)
    }

    /// The line as the origin signs it, the fields it has in this order, tab-separated.
    public var text: String {
        var parts: [String] = []
        if let generation { parts.append("generation:\(generation)") }
        if let expires { parts.append("expires:\(expires)") }
        return parts.joined(separator: "\t")
    }

    /// `name:value` from a trusted comment of space- or tab-separated fields.
    public static func field(_ name: String, in comment: String) -> String? {
        for part in comment.split(whereSeparator: { $0 == " " || $0 == "\t" }) where part.hasPrefix(name + ":") {
            return String(part.dropFirst(name.count + 1))
        }
        return nil
    }
}
