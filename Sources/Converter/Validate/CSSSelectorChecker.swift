/// A conservative check of CSS selectors for `css-display-none`. WebKit drops a selector its CSS parser
/// rejects silently, and with it the whole comma-joined group, so anything doubtful is refused:
/// unbalanced brackets, quotes or parentheses, braces, pseudo-elements, and pseudo-classes outside
/// a known list. ABP's procedural operators are told apart so the report can name them.
struct CSSSelectorChecker {
    enum Verdict: Equatable {
        case valid
        /// ABP/uBO procedural operators (`:-abp-has`, `:has-text`, `:xpath`, …): not CSS at all.
        case extendedCSS
        case invalid
    }

    /// Pseudo-classes this WebKit's selector parser accepts (`:has()` included since WebKit 2.42).
    static let supportedPseudoClasses: Set<String> = [
        "not", "is", "where", "has", "matches", "-webkit-any", "nth-child", "nth-last-child", "nth-of-type",
        "nth-last-of-type", "first-child", "last-child", "only-child", "first-of-type", "last-of-type", "only-of-type",
        "empty", "root", "link", "any-link", "visited", "hover", "active", "focus", "focus-within", "focus-visible",
        "target", "checked", "disabled", "enabled", "lang", "dir", "placeholder-shown", "read-only", "read-write",
        "required", "optional", "default", "indeterminate", "valid", "invalid", "in-range", "out-of-range", "scope",
        "defined",
    ]

    static let proceduralOperators: Set<String> = [
        "has-text", "contains", "xpath", "style", "remove", "upward", "matches-css", "matches-css-before",
        "matches-css-after", "matches-path", "matches-attr", "matches-prop", "matches-media", "min-text-length",
        "watch-attr", "others", "if", "if-not", "nth-ancestor", "remove-attr", "remove-class", "properties", "shadow",
    ]

    static func check<C: Collection>(_ selector: C) -> Verdict where C.Element == UInt8, C.Index == Int {
        let bytes = selector
        if bytes.isEmpty { return .invalid }
        var stack: [UInt8] = []
        var quote: UInt8 = 0
        var index = bytes.startIndex
        var firstSignificant: UInt8 = 0
        var lastSignificant: UInt8 = 0
        var previousSignificant: UInt8 = 0
        while index < bytes.endIndex {
            let byte = bytes[index]
            // Name bytes outside quotes, most of any selector: what the steps below do for them, inline.
            if quote == 0 && isNameByte(byte) {
                if firstSignificant == 0 { firstSignificant = byte }
                previousSignificant = byte
                lastSignificant = byte
                index += 1
                continue
            }
            if byte < 0x20 || byte == 0x7F { return .invalid }
            if quote != 0 {
                if byte == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if byte == quote { quote = 0 }
                index += 1
                continue
            }
            if byte != 0x20 {
                if firstSignificant == 0 { firstSignificant = byte }
                if byte == UInt8(ascii: ","), previousSignificant == UInt8(ascii: ",") || previousSignificant == 0 {
                    return .invalid
                }
                previousSignificant = byte
                lastSignificant = byte
            }
            switch byte {
            case UInt8(ascii: "\\"):
                if index + 1 >= bytes.endIndex { return .invalid }
                lastSignificant = UInt8(ascii: "a")
                index += 2
                continue
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                quote = byte
            case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: ";"), UInt8(ascii: "@"):
                return .invalid
            case UInt8(ascii: "["), UInt8(ascii: "("):
                stack.append(byte)
            case UInt8(ascii: "]"):
                if stack.popLast() != UInt8(ascii: "[") { return .invalid }
            case UInt8(ascii: ")"):
                if stack.popLast() != UInt8(ascii: "(") { return .invalid }
            case UInt8(ascii: ":"):
                if stack.last == UInt8(ascii: "[") { break }
                var nameStart = index + 1
                if nameStart < bytes.endIndex, bytes[nameStart] == UInt8(ascii: ":") { return .invalid }
                var nameEnd = nameStart
                while nameEnd < bytes.endIndex, isNameByte(bytes[nameEnd]) { nameEnd += 1 }
                if nameEnd == nameStart { return .invalid }
                let name = String(
                    decoding: bytes[nameStart..<nameEnd].map(NetworkOptionsParser.lowercased), as: UTF8.self)
                if name.hasPrefix("-abp-") || proceduralOperators.contains(name) {
                    return .extendedCSS
                } else if !supportedPseudoClasses.contains(name) {
                    return .invalid
                }
                nameStart = nameEnd
                lastSignificant = UInt8(ascii: "a")
                index = nameEnd
                continue
            case UInt8(ascii: "."), UInt8(ascii: "#"):
                if stack.last != UInt8(ascii: "[") && !startsIdentifier(bytes, at: index + 1) { return .invalid }
            case UInt8(ascii: "="), UInt8(ascii: "^"), UInt8(ascii: "$"), UInt8(ascii: "|"):
                if stack.last != UInt8(ascii: "[") { return .invalid }
            default:
                if byte < 0x80, !isNameByte(byte), byte != 0x20, byte != UInt8(ascii: "*"), byte != UInt8(ascii: ">"),
                    byte != UInt8(ascii: "+"), byte != UInt8(ascii: "~"), byte != UInt8(ascii: ",")
                {
                    return .invalid
                }
            }
            index += 1
        }
        if quote != 0 || !stack.isEmpty { return .invalid }
        switch firstSignificant {
        case 0, UInt8(ascii: ">"), UInt8(ascii: "+"), UInt8(ascii: "~"), UInt8(ascii: ","): return .invalid
        default: break
        }
        switch lastSignificant {
        case UInt8(ascii: ">"), UInt8(ascii: "+"), UInt8(ascii: "~"), UInt8(ascii: ","): return .invalid
        default: return .valid
        }
    }

    /// CSS identifiers (class and id names) cannot start with a digit, or with `-` and a digit (CSS Syntax §4.3.9).
    private static func startsIdentifier<C: Collection>(_ bytes: C, at index: Int) -> Bool
    where C.Element == UInt8, C.Index == Int {
        func isStart(_ byte: UInt8) -> Bool {
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || byte == UInt8(ascii: "_")
                || byte >= 0x80 || byte == UInt8(ascii: "\\")
        }
        guard index < bytes.endIndex else { return false }
        let first = bytes[index]
        if isStart(first) { return true }
        guard first == UInt8(ascii: "-"), index + 1 < bytes.endIndex else { return false }
        let second = bytes[index + 1]
        return isStart(second) || second == UInt8(ascii: "-")
    }

    @inline(__always) private static func isNameByte(_ byte: UInt8) -> Bool {
        NetworkFilterParser.isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}
