import Converter

/// The lines of a list's site-exception rule that concern one page.
///
/// The converter writes the site exceptions that end a list as one `ignore-previous-rules` rule
/// over `.*` with the union of their `if-domain` sites, and that rule names every site
/// exception's line. An answer about one page keeps only the lines that name the page's host or
/// one of its parent domains (all of them when none does, so no line is ever hidden wrongly).
enum SiteExceptionLines {
    private static let prefix = #"{"trigger":{"url-filter":".*","if-domain":"#

    /// `lines` narrowed to those naming `pageHost`, when `json` is a site-exception rule.
    static func concerning(_ pageHost: String, json: String, lines: [SourceLine]) -> [SourceLine] {
        guard lines.count > 1, json.hasPrefix(prefix), json.hasSuffix(#""action":{"type":"ignore-previous-rules"}}"#)
        else {
            return lines
        }
        var domains: [Substring] = []
        var rest = Substring(pageHost.lowercased())
        while let dot = rest.firstIndex(of: ".") {
            domains.append(rest)
            rest = rest[rest.index(after: dot)...]
        }
        let kept = lines.filter { line in domains.contains { names(line.text.lowercased(), $0) } }
        return kept.isEmpty ? lines : kept
    }

    /// Whether `text` holds `domain` as a whole host name, not as part of a longer one.
    static func names(_ text: String, _ domain: Substring) -> Bool {
        var search = text[...]
        while let range = search.range(of: domain) {
            let before = range.lowerBound > text.startIndex ? text[text.index(before: range.lowerBound)] : nil
            let after = range.upperBound < text.endIndex ? text[range.upperBound] : nil
            if !isHostCharacter(before) && !isHostCharacter(after) { return true }
            search = text[range.upperBound...]
        }
        return false
    }

    private static func isHostCharacter(_ character: Character?) -> Bool {
        guard let character else { return false }
        return character.isLetter || character.isNumber || character == "." || character == "-" || character == "_"
    }
}
