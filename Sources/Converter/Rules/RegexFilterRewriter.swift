/// Rewrites an ABP `/regex/` (JavaScript syntax) into WebKit's url-filter subset, exactly or not at all:
/// `\d` → `[0-9]`, `\w` → `[A-Za-z0-9_]`, `(?:` → `(`, `\/` → `/`; alternation, counted repetition,
/// lookarounds, backreferences, `\b`, `\s` and anything unusual are skipped with a named reason.
struct RegexFilterRewriter {
    private static let digit = Array("0-9".utf8)
    private static let word = Array("A-Za-z0-9_".utf8)

    static func rewrite(_ source: ArraySlice<UInt8>) -> Result<[UInt8], SkipReasonError> {
        func fail(_ reason: SkipReason) -> Result<[UInt8], SkipReasonError> {
            .failure(SkipReasonError(reason: reason))
        }
        let bytes = Array(source)
        if bytes.isEmpty { return fail(.invalidFilter) }
        if bytes.contains(where: { $0 >= 0x80 }) { return fail(.nonASCII) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var index = 0
        var depth = 0
        /// Whether the previous term can take a quantifier.
        var canQuantify = false
        var lastWasQuantifier = false
        while index < bytes.count {
            let byte = bytes[index]
            var quantifier = false
            switch byte {
            case UInt8(ascii: "^"):
                if index != 0 { return fail(.regexAnchor) }
                out.append(byte)
                canQuantify = false
            case UInt8(ascii: "$"):
                if index != bytes.count - 1 { return fail(.regexAnchor) }
                out.append(byte)
                canQuantify = false
            case UInt8(ascii: "|"):
                return fail(.regexAlternation)
            case UInt8(ascii: "{"):
                return fail(.regexRepetition)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                // Literal outside a class in JavaScript (Annex B); escaped so no parser can read it otherwise.
                out.append(contentsOf: [UInt8(ascii: "\\"), byte])
                canQuantify = true
            case UInt8(ascii: "("):
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "?") {
                    guard index + 2 < bytes.count else { return fail(.regexUnsupported) }
                    switch bytes[index + 2] {
                    case UInt8(ascii: ":"): index += 2
                    case UInt8(ascii: "="), UInt8(ascii: "!"), UInt8(ascii: "<"): return fail(.regexLookaround)
                    default: return fail(.regexUnsupported)
                    }
                }
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ")") { return fail(.regexUnsupported) }
                depth += 1
                out.append(UInt8(ascii: "("))
                canQuantify = false
            case UInt8(ascii: ")"):
                depth -= 1
                if depth < 0 { return fail(.regexUnsupported) }
                out.append(byte)
                canQuantify = true
            case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"):
                if lastWasQuantifier || !canQuantify { return fail(.regexUnsupported) }
                out.append(byte)
                quantifier = true
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { return fail(.regexUnsupported) }
                index += 1
                let escaped = bytes[index]
                switch escaped {
                case UInt8(ascii: "d"):
                    out.append(UInt8(ascii: "["))
                    out.append(contentsOf: digit)
                    out.append(UInt8(ascii: "]"))
                case UInt8(ascii: "D"):
                    out.append(contentsOf: Array("[^".utf8))
                    out.append(contentsOf: digit)
                    out.append(UInt8(ascii: "]"))
                case UInt8(ascii: "w"):
                    out.append(UInt8(ascii: "["))
                    out.append(contentsOf: word)
                    out.append(UInt8(ascii: "]"))
                case UInt8(ascii: "W"):
                    out.append(contentsOf: Array("[^".utf8))
                    out.append(contentsOf: word)
                    out.append(UInt8(ascii: "]"))
                case UInt8(ascii: "s"), UInt8(ascii: "S"): return fail(.regexCharacterClass)
                case UInt8(ascii: "b"), UInt8(ascii: "B"): return fail(.regexWordBoundary)
                case UInt8(ascii: "1")...UInt8(ascii: "9"): return fail(.regexBackreference)
                case UInt8(ascii: "/"): out.append(escaped)
                default:
                    guard isPunctuation(escaped) else { return fail(.regexUnsupported) }
                    out.append(UInt8(ascii: "\\"))
                    out.append(escaped)
                }
                canQuantify = true
            case UInt8(ascii: "["):
                guard let end = rewriteClass(bytes, from: index, into: &out) else { return fail(.regexCharacterClass) }
                index = end
                canQuantify = true
            default:
                if byte < 0x20 || byte == 0x7F { return fail(.regexUnsupported) }
                out.append(byte)
                canQuantify = true
            }
            lastWasQuantifier = quantifier
            if quantifier { canQuantify = false }
            index += 1
        }
        if depth != 0 { return fail(.regexUnsupported) }
        if out.isEmpty || out == [UInt8(ascii: "^")] || out == [UInt8(ascii: "$")] { return fail(.invalidFilter) }
        return .success(out)
    }

    /// Copies the class starting at `bytes[start] == "["`; returns the index of its `]`, or nil when the
    /// class cannot be expressed exactly (empty, unterminated, `\s`, negated escapes, reversed ranges).
    private static func rewriteClass(_ bytes: [UInt8], from start: Int, into out: inout [UInt8]) -> Int? {
        var index = start + 1
        out.append(UInt8(ascii: "["))
        if index < bytes.count, bytes[index] == UInt8(ascii: "^") {
            out.append(UInt8(ascii: "^"))
            index += 1
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { return nil }
        /// The last single character written, for range order checks; nil after a class escape.
        var previous: UInt8?
        var pendingRange = false
        while index < bytes.count {
            var byte = bytes[index]
            if byte == UInt8(ascii: "]") {
                if pendingRange { return nil }
                out.append(byte)
                return index
            }
            var literal: UInt8? = byte
            if byte == UInt8(ascii: "\\") {
                guard index + 1 < bytes.count else { return nil }
                index += 1
                byte = bytes[index]
                switch byte {
                case UInt8(ascii: "d"):
                    out.append(contentsOf: digit)
                    literal = nil
                case UInt8(ascii: "w"):
                    out.append(contentsOf: word)
                    literal = nil
                case UInt8(ascii: "/"):
                    out.append(byte)
                    literal = byte
                default:
                    guard isPunctuation(byte) else { return nil }
                    out.append(UInt8(ascii: "\\"))
                    out.append(byte)
                    literal = byte
                }
            } else if byte == UInt8(ascii: "-"), previous != nil, !pendingRange, index + 1 < bytes.count,
                bytes[index + 1] != UInt8(ascii: "]")
            {
                out.append(byte)
                pendingRange = true
                index += 1
                continue
            } else {
                if byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "[") { return nil }
                out.append(byte)
            }
            if pendingRange {
                guard let low = previous, let high = literal, low <= high else { return nil }
                pendingRange = false
                previous = nil
            } else {
                previous = literal
            }
            index += 1
        }
        return nil
    }

    @inline(__always) static func isPunctuation(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && !NetworkFilterParser.isAlphanumeric(byte)
    }
}
