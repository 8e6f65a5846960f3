import JSONBytes

/// First look at one trimmed line: is it a rule at all, and are its bytes usable?
/// Comments (`!`, `# `), `[Adblock Plus …]` headers and blank lines are not rules.
enum LineKind: Equatable {
    case notARule
    case network
    case cosmetic(separatorStart: Int)
    case unusable(SkipReason)
}

struct LineClassifier {
    /// Longer lines are skipped: real lists stay under 6 KB, and WebKit compile time grows with pattern size.
    static let maximumLineLength = 32 * 1024

    static func classify(_ line: UnsafeBufferPointer<UInt8>) -> LineKind {
        let count = line.count
        if count == 0 { return .notARule }
        let first = line[0]
        if first == UInt8(ascii: "!") { return .notARule }
        if first == UInt8(ascii: "["), line[count - 1] == UInt8(ascii: "]") { return .notARule }
        if first == UInt8(ascii: "#"), count == 1 || line[1] == 0x20 { return .notARule }
        if count > maximumLineLength { return .unusable(.lineTooLong) }
        var hasHighBytes = false
        for byte in line {
            if byte < 0x20 || byte == 0x7F { return .unusable(.controlCharacters) }
            if byte >= 0x80 { hasHighBytes = true }
        }
        if hasHighBytes, !UTF8Validation.isValidSequence(line) { return .unusable(.invalidUTF8) }
        if let separator = cosmeticSeparatorStart(line) { return .cosmetic(separatorStart: separator) }
        return .network
    }

    /// Index of the `#` that starts `##`, `#@#`, `#?#`, `#$#`, `#%#` (or their `@` forms), when the
    /// text before it can be a domain list (ABP: no `/`, `|`, `@`, `"`, `!`, `$`, `^`).
    static func cosmeticSeparatorStart(_ line: UnsafeBufferPointer<UInt8>) -> Int? {
        let count = line.count
        var index = 0
        while index < count {
            let byte = line[index]
            switch byte {
            case UInt8(ascii: "/"), UInt8(ascii: "|"), UInt8(ascii: "@"), UInt8(ascii: "\""),
                UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "^"):
                return nil
            case UInt8(ascii: "#"):
                var next = index + 1
                if next < count, line[next] == UInt8(ascii: "@") { next += 1 }
                if next < count,
                    line[next] == UInt8(ascii: "?") || line[next] == UInt8(ascii: "$")
                        || line[next] == UInt8(ascii: "%")
                {
                    next += 1
                }
                if next < count, line[next] == UInt8(ascii: "#") { return index }
                return nil
            default:
                index += 1
            }
        }
        return nil
    }
}
