import ListFormat

/// RFC 9842 §2.1 `Use-As-Dictionary` for a list response. The request side (`Accept-Encoding`,
/// `Available-Dictionary`) is HTTPServerCore's.
public enum UseAsDictionary {
    /// `match="<directory><id>.*.json"`: the list's later versions (`<id>.<sha12>.json`) on the same
    /// origin, as a URL Pattern without regexp groups. No `match-dest` (apps have no fetch destination;
    /// empty matches all), no `id` (the hash in Available-Dictionary is enough), `type` defaults to raw.
    /// `directory` is the URL path the lists are served under, with its trailing slash.
    /// Nil when the id or the directory could not be written safely.
    public static func fieldValue(listID: String, directory: String = "/") -> String? {
        guard PatchFileName.isListID(listID), directory.hasPrefix("/"), directory.hasSuffix("/"),
            directory.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C })
        else { return nil }
        let pattern = escapeForURLPattern(directory) + listID + ".*.json"
        return "match=\"\(pattern)\""
    }

    /// URL Pattern's syntax characters in a literal path become literal (`\` is not allowed in
    /// `directory`, so none is doubled for the sf-string).
    static func escapeForURLPattern(_ text: String) -> String {
        var out = ""
        for c in text {
            if ":*(){}+?".contains(c) { out += "\\\\" }
            out.append(c)
        }
        return out
    }

    /// `Vary` for every list response, 304s included: the body depends on both request fields.
    public static let vary = "Accept-Encoding, Available-Dictionary"
}
