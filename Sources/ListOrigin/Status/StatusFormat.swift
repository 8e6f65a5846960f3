import Foundation

/// Text for the status page: HTML escaping and the few number, size and time shapes it prints.
enum StatusFormat {
    /// Escapes text for HTML element content and quoted attribute values (`& < > " '`).
    static func html(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    /// `1234567` → `1,234,567`.
    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return value < 0 ? "-" + out : out
    }

    /// Decimal units, as a download is billed: `950 B`, `12.3 kB`, `4.56 MB`.
    static func bytes(_ value: Int) -> String {
        let amount = Double(value)
        if value < 1000 { return "\(value) B" }
        if value < 1_000_000 { return String(format: "%.1f kB", amount / 1000) }
        return String(format: "%.2f MB", amount / 1_000_000)
    }

    /// `3 d 4 h`, `5 h 12 min`, `42 s`: an age at a glance.
    static func age(_ seconds: TimeInterval) -> String {
        let total = max(0, Int(seconds))
        if total < 60 { return "\(total) s" }
        if total < 3600 { return "\(total / 60) min" }
        if total < 86400 { return "\(total / 3600) h \(total % 3600 / 60) min" }
        return "\(total / 86400) d \(total % 86400 / 3600) h"
    }

    /// `2026-12-01 15:14 UTC`.
    static func time(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date) + " UTC"
    }

    /// `2026-12-01`.
    static func day(_ date: Date) -> String {
        String(time(date).prefix(10))
    }
}

/// Whether a `GET /status` wants the page rather than the JSON document: only when the `Accept`
/// field ranks `text/html` above `application/json` (RFC 9110 §12.5.1). No field, `*/*` or a tie
/// keep the JSON that machines read.
enum StatusNegotiation {
    static func prefersHTML(accept: String?) -> Bool {
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
        /// The quality of the most specific range that matches the type.
        func quality(_ type: String, _ subtype: String) -> Double {
            if let exact = ranges.first(where: { $0.type == type && $0.subtype == subtype }) { return exact.q }
            if let group = ranges.first(where: { $0.type == type && $0.subtype == "*" }) { return group.q }
            return ranges.first(where: { $0.type == "*" && $0.subtype == "*" })?.q ?? 0
        }
        let html = quality("text", "html")
        return html > 0 && html > quality("application", "json")
    }
}
