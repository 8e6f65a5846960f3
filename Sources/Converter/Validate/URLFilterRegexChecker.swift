import URLFilterGrammar

/// Judges a url-filter by `URLFilterParser` in its strict mode, erring on the side of refusal: what WebKit
/// refuses, and what it compiles into a rule that never matches (backreferences, letter escapes…).
/// Problems read as before the parser was shared: the offset, and WebKit's words where WebKit refuses.
struct URLFilterRegexChecker {
    /// nil when WebKit compiles the pattern, otherwise why it would not (or would be dead).
    static func problem<C: Collection>(in pattern: C) -> String? where C.Element == UInt8 {
        if let verdict = pattern.withContiguousStorageIfAvailable({ problem(in: $0) }) { return verdict }
        return Array(pattern).withUnsafeBufferPointer { problem(in: $0) }
    }

    /// The host anchor that starts most url-filters (`URLFilterBuilder` writes it for `||host` filters).
    static let hostAnchor: StaticString = #"^[^:]+://+([^:/]+\.)?"#

    /// - Parameter skippingHostAnchor: let the pre-check and the parser start after a leading `hostAnchor`
    ///   (false only in tests, to compare).
    static func problem(in bytes: UnsafeBufferPointer<UInt8>, skippingHostAnchor: Bool = true) -> String? {
        let start = skippingHostAnchor && startsWithHostAnchor(bytes) ? hostAnchor.utf8CodeUnitCount : 0
        if !bytes.isEmpty, isPlain(bytes, from: start, to: bytes.count) { return nil }
        // Filters of `||host^` end in the host's end class after plain bytes: most of a list's filters.
        if endsWithHostEnd(bytes, after: start),
            isPlain(bytes, from: start, to: bytes.count - URLFilterBuilder.hostEndClass.count)
        {
            return nil
        }
        do {
            try URLFilterParser.check(bytes, mode: .strict, quantifiedPrefix: start)
            return nil
        } catch {
            return describe(error, in: bytes)
        }
    }

    /// The fast pre-check: only plain atoms and escaped punctuation from `start` to `end`, which the
    /// parser accepts after the host anchor (a whole term) or from the start, and before a class. A
    /// false answer decides nothing.
    @inline(__always) static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        var index = start
        while index < end {
            let byte = bytes[index]
            if URLFilterGrammar.isPlainAtom(byte) {
                index += 1
            } else if byte == UInt8(ascii: "\\"), index + 1 < end,
                URLFilterGrammar.isEscapablePunctuation(bytes[index + 1])
            {
                index += 2
            } else {
                return false
            }
        }
        return true
    }

    /// `bytes` end in the class `URLFilterBuilder` ends a `||host^` filter with, and it starts at or
    /// after `start`.
    @inline(__always) static func endsWithHostEnd(_ bytes: UnsafeBufferPointer<UInt8>, after start: Int) -> Bool {
        let hostEnd = URLFilterBuilder.hostEndClass
        guard bytes.count - hostEnd.count >= start else { return false }
        return UnsafeBufferPointer(rebasing: bytes[(bytes.count - hostEnd.count)...]).elementsEqual(hostEnd)
    }

    /// Three overlapping 8-byte compares cover the 21 bytes of `hostAnchor`.
    @inline(__always) static func startsWithHostAnchor(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 21 else { return false }
        let actual = UnsafeRawPointer(bytes.baseAddress!)
        let expected = UnsafeRawPointer(hostAnchor.utf8Start)
        return actual.loadUnaligned(as: UInt64.self) == expected.loadUnaligned(as: UInt64.self)
            && actual.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                == expected.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            && actual.loadUnaligned(fromByteOffset: 13, as: UInt64.self)
                == expected.loadUnaligned(fromByteOffset: 13, as: UInt64.self)
    }

    private static func describe(_ error: URLFilterSyntaxError, in bytes: UnsafeBufferPointer<UInt8>) -> String {
        let at = error.position
        switch error.reason {
        case .refused(.emptyFilter): return "empty url-filter (WebKit: \(URLFilterGrammar.Refusal.emptyFilter.message))"
        case .refused(.nonASCII):
            return "non-ASCII byte at \(at) (WebKit: \(URLFilterGrammar.Refusal.nonASCII.message))"
        case .refused(.misplacedStartOfLine): return "'^' at \(at) is not the first term"
        case .refused(.misplacedEndOfLine): return "'$' at \(at) is not the last term"
        case .refused(.disjunction):
            return "alternation '|' at \(at) (WebKit: \(URLFilterGrammar.Refusal.disjunction.message))"
        case .refused(.arbitraryRepetition):
            return "'{' at \(at) (WebKit: \(URLFilterGrammar.Refusal.arbitraryRepetition.message))"
        case .refused(.group): return "group assertion at \(at) (WebKit: \(URLFilterGrammar.Refusal.group.message))"
        case .controlCharacter: return "control character at \(at)"
        case .emptyGroup: return "empty group at \(at)"
        case .unopenedGroup: return "unbalanced ')' at \(at)"
        case .unclosedGroup: return "unbalanced '(' (WebKit: \(URLFilterGrammar.Refusal.yarrError.message))"
        case .quantifierAfterQuantifier: return "quantifier after quantifier at \(at)"
        case .nothingToRepeat: return "quantifier with nothing to repeat at \(at)"
        case .trailingBackslash: return "trailing backslash"
        case .unsupportedEscape: return "unsupported escape '\\\(Character(Unicode.Scalar(bytes[at + 1])))' at \(at)"
        case .invalidCharacterClass: return "invalid or unterminated character class at \(at)"
        default: return "\(error.reason.message) at \(at)"
        }
    }
}
