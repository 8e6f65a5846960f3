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
        if hasHighBytes, !isValidUTF8(line) { return .unusable(.invalidUTF8) }
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
                if next < count, line[next] == UInt8(ascii: "?") || line[next] == UInt8(ascii: "$") || line[next] == UInt8(ascii: "%") { next += 1 }
                if next < count, line[next] == UInt8(ascii: "#") { return index }
                return nil
            default:
                index += 1
            }
        }
        return nil
    }

    /// Strict UTF-8 check (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 { index += 1; continue }
            let length: Int
            var lowerBound: UInt8 = 0x80
            var upperBound: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lowerBound = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upperBound = 0x9F
            case 0xF0: length = 4; lowerBound = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upperBound = 0x8F
            default: return false
            }
            if index + length > count { return false }
            let second = bytes[index + 1]
            if second < lowerBound || second > upperBound { return false }
            var offset = 2
            while offset < length {
                let continuation = bytes[index + offset]
                if continuation < 0x80 || continuation > 0xBF { return false }
                offset += 1
            }
            index += length
        }
        return true
    }
}
