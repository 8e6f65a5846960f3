import URLFilterGrammar

/// Mirrors what WebKit's content-extension URL filter parser (YARR with a restricted delegate) accepts,
/// over `URLFilterGrammar`, erring on the side of refusal: ASCII only; no `|`, no `{…}` repetition, no `\d \w \s \b`, no
/// lookarounds or backreferences (accepted by WebKit but silently dead); `^` only first and `$` only
/// last; balanced groups; quantifiers only after an atom; valid escapes and ordered class ranges.
struct URLFilterRegexChecker {
    /// nil when WebKit compiles the pattern, otherwise why it would not (or would be dead).
    static func problem<C: Collection>(in pattern: C) -> String? where C.Element == UInt8 {
        if let verdict = pattern.withContiguousStorageIfAvailable({ problem(in: $0) }) { return verdict }
        return Array(pattern).withUnsafeBufferPointer { problem(in: $0) }
    }

    /// Where a scan stands after some leading bytes: all that the verdict on the following bytes depends on.
    struct Scan: Equatable {
        var index = 0
        var depth = 0
        var canQuantify = false
        var lastWasQuantifier = false
    }

    /// The host anchor that starts most url-filters (`URLFilterBuilder` writes it for `||host` filters).
    static let hostAnchor: StaticString = #"^[^:]+://+([^:/]+\.)?"#
    /// The scan's state right after `hostAnchor`. It does not depend on what follows: no construct in the
    /// anchor looks past its last byte (a `?`), and it holds no `$`. ValidatorFastPathTests checks this state
    /// against a real scan of the anchor and the verdicts with and without the shortcut.
    static let afterHostAnchor = Scan(index: 21, depth: 0, canQuantify: false, lastWasQuantifier: true)

    /// - Parameter skippingHostAnchor: start after a leading `hostAnchor` from its known state instead of
    ///   scanning it (false only in tests, to compare).
    static func problem(in bytes: UnsafeBufferPointer<UInt8>, skippingHostAnchor: Bool = true) -> String? {
        if bytes.isEmpty { return "empty url-filter (WebKit: \(URLFilterGrammar.Refusal.emptyFilter.message))" }
        var scan = skippingHostAnchor && startsWithHostAnchor(bytes) ? afterHostAnchor : Scan()
        if let problem = run(bytes, &scan) { return problem }
        if scan.depth != 0 { return "unbalanced '(' (WebKit: \(URLFilterGrammar.Refusal.yarrError.message))" }
        return nil
    }

    /// Three overlapping 8-byte compares cover the 21 bytes of `hostAnchor`.
    @inline(__always) static func startsWithHostAnchor(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 21 else { return false }
        let actual = UnsafeRawPointer(bytes.baseAddress!)
        let expected = UnsafeRawPointer(hostAnchor.utf8Start)
        return actual.loadUnaligned(as: UInt64.self) == expected.loadUnaligned(as: UInt64.self)
            && actual.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == expected.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            && actual.loadUnaligned(fromByteOffset: 13, as: UInt64.self) == expected.loadUnaligned(fromByteOffset: 13, as: UInt64.self)
    }

    /// Scans from `scan` to the end of `bytes`; the first problem, or nil with `scan` at the end.
    static func run(_ bytes: UnsafeBufferPointer<UInt8>, _ scan: inout Scan) -> String? {
        var index = scan.index
        var depth = scan.depth
        var canQuantify = scan.canQuantify
        var lastWasQuantifier = scan.lastWasQuantifier
        defer { scan = Scan(index: index, depth: depth, canQuantify: canQuantify, lastWasQuantifier: lastWasQuantifier) }
        while index < bytes.count {
            let byte = bytes[index]
            // Most bytes are plain atoms (letters, digits, `.`, `/`, `-`…): the `default` case below, inline.
            if URLFilterGrammar.isPlainAtom(byte) {
                canQuantify = true
                lastWasQuantifier = false
                index += 1
                continue
            }
            // So are valid escapes (`\.`, `\/`…): the `\` case below, inline.
            if byte == UInt8(ascii: "\\"), index + 1 < bytes.count, URLFilterGrammar.isEscapablePunctuation(bytes[index + 1]) {
                canQuantify = true
                lastWasQuantifier = false
                index += 2
                continue
            }
            if byte >= 0x80 { return "non-ASCII byte at \(index) (WebKit: \(URLFilterGrammar.Refusal.nonASCII.message))" }
            if byte < 0x20 || byte == 0x7F { return "control character at \(index)" }
            var quantifier = false
            switch byte {
            case UInt8(ascii: "^"):
                if index != 0 { return "'^' at \(index) is not the first term" }
                canQuantify = false
            case UInt8(ascii: "$"):
                if index != bytes.count - 1 { return "'$' at \(index) is not the last term" }
                canQuantify = false
            case UInt8(ascii: "|"):
                return "alternation '|' at \(index) (WebKit: \(URLFilterGrammar.Refusal.disjunction.message))"
            case UInt8(ascii: "{"):
                return "'{' at \(index) (WebKit: \(URLFilterGrammar.Refusal.arbitraryRepetition.message))"
            case UInt8(ascii: "("):
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "?") {
                    guard index + 2 < bytes.count, bytes[index + 2] == UInt8(ascii: ":") else {
                        return "group assertion at \(index) (WebKit: \(URLFilterGrammar.Refusal.group.message))"
                    }
                    index += 2
                }
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ")") { return "empty group at \(index)" }
                depth += 1
                canQuantify = false
            case UInt8(ascii: ")"):
                depth -= 1
                if depth < 0 { return "unbalanced ')' at \(index)" }
                canQuantify = true
            case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"):
                if lastWasQuantifier { return "quantifier after quantifier at \(index)" }
                if !canQuantify { return "quantifier with nothing to repeat at \(index)" }
                quantifier = true
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { return "trailing backslash" }
                index += 1
                let escaped = bytes[index]
                if !URLFilterGrammar.isEscapablePunctuation(escaped) {
                    return "unsupported escape '\\\(Character(Unicode.Scalar(escaped)))' at \(index - 1)"
                }
                canQuantify = true
            case UInt8(ascii: "["):
                guard let end = classEnd(bytes, from: index) else { return "invalid or unterminated character class at \(index)" }
                index = end
                canQuantify = true
            default:
                canQuantify = true
            }
            lastWasQuantifier = quantifier
            if quantifier { canQuantify = false }
            index += 1
        }
        return nil
    }

    /// Index of the `]` closing the class at `start`, or nil if it is empty, unterminated, uses letter
    /// escapes or has a reversed range.
    private static func classEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start + 1
        if index < bytes.count, bytes[index] == UInt8(ascii: "^") { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { return nil }
        var previous: UInt8?
        var pendingRange = false
        while index < bytes.count {
            var byte = bytes[index]
            if byte >= 0x80 || byte < 0x20 || byte == 0x7F { return nil }
            if byte == UInt8(ascii: "]") { return pendingRange ? nil : index }
            if byte == UInt8(ascii: "[") { return nil }
            if byte == UInt8(ascii: "\\") {
                guard index + 1 < bytes.count else { return nil }
                index += 1
                byte = bytes[index]
                if !URLFilterGrammar.isEscapablePunctuation(byte) { return nil }
            } else if byte == UInt8(ascii: "-"), previous != nil, index + 1 < bytes.count, bytes[index + 1] != UInt8(ascii: "]"), !pendingRange {
                pendingRange = true
                index += 1
                continue
            }
            if pendingRange {
                guard let low = previous, low <= byte else { return nil }
                pendingRange = false
                previous = nil
            } else {
                previous = byte
            }
            index += 1
        }
        return nil
    }
}
