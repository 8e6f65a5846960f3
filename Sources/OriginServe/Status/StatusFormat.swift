import Foundation

/// Text for the status page: HTML escaping and the few number, size and time shapes it prints.
package enum StatusFormat {
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

    /// `text` cut to `length` characters, the last one an ellipsis, for a cell whose whole text is its tooltip.
    static func cut(_ text: String, to length: Int) -> String {
        text.count > length ? String(text.prefix(length - 1)) + "…" : text
    }

    /// `1234567` → `1,234,567`.
    package static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return value < 0 ? "-" + out : out
    }

    /// Decimal units, as a download is billed: `950 B`, `12.3 kB`, `4.56 MB`.
    package static func bytes(_ value: Int) -> String {
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
    package static func time(_ date: Date) -> String {
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

    /// The head and page header every server-rendered index shares (the status page's style, plus
    /// `extraStyle`), up to the opening `<main>`.
    static func pageStart(title: String, subtitle: String, extraStyle: String = "") -> String {
        var out = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        out += "<title>\(html(title))</title><style>\(StatusPage.style)\(extraStyle)</style></head><body>"
        out += "<header><div><h1>\(html(title))</h1><p>\(html(subtitle))</p></div></header><main>"
        return out
    }
}
