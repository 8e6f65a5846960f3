/// WebKit's url-filter grammar, in one place for its readers: the converter's validator (which refuses
/// what WebKit would refuse, or would compile into a rule that never matches), the converter's regex
/// rewriter (which reads ABP's JavaScript regexes and writes them in this grammar) and the decision
/// engine behind `explain` (which compiles what WebKit compiles). WebKit's content-extension
/// `URLFilterParser` accepts an ASCII-only subset of ECMAScript regular expressions: atoms (literals,
/// `.`, escaped punctuation, `[…]` classes with ranges) optionally followed by one of `* + ?`,
/// non-capturing and capturing groups, `^` only first and `$` only last. Everything else is refused
/// with one of `Refusal`'s reasons.
public enum URLFilterGrammar {
    /// Why WebKit refuses a url-filter, in WebKit's own words (`URLFilterParser::statusString` without
    /// its period; `emptyFilter` is the content-extension parser's), so a reason we print can be found
    /// in WebKit's sources and console.
    public enum Refusal: String, Sendable, CaseIterable {
        case nonASCII = "Only ASCII characters are supported in pattern"
        case builtinCharacterClass = "Character class is not supported"
        case misplacedStartOfLine = "Start of line assertion can only appear as the first term in a filter"
        case misplacedEndOfLine = "The end of line assertion must be the last term in an expression"
        case wordBoundary = "Word boundaries assertions are not supported yet"
        case group = "Groups are not supported yet"
        case disjunction = "Disjunctions are not supported yet"
        case arbitraryRepetition = "Arbitrary atom repetitions are not supported"
        case yarrError = "Internal error in YARR"
        case emptyFilter = "Invalid url-filter object"

        public var message: String { rawValue }
    }

    /// `* + ?`: the only quantifiers (`{n,m}` is `Refusal.arbitraryRepetition`).
    @inlinable public static func isQuantifier(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "*") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "?")
    }

    /// Printable ASCII that is no operator: 0x20-0x7E minus `$ ( ) * + ?` and `[ \ ^ { |`. A literal
    /// atom by itself (`.` is the any-byte atom). Bit n of the low word is byte n, bit n of the high
    /// word byte 64 + n.
    @inlinable public static func isPlainAtom(_ byte: UInt8) -> Bool {
        if byte < 64 { return 0x7FFF_F0EF_0000_0000 as UInt64 >> byte & 1 != 0 }
        if byte < 128 { return 0x67FF_FFFF_A7FF_FFFF as UInt64 >> (byte - 64) & 1 != 0 }
        return false
    }

    @inlinable public static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
    }

    /// Printable ASCII other than letters and digits: what `\` makes a literal of.
    @inlinable public static func isEscapablePunctuation(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && !isAlphanumeric(byte)
    }

    /// `\d \D \w \W \s \S`: `Refusal.builtinCharacterClass`, inside a class too.
    @inlinable public static func isBuiltinClassEscape(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "d"), UInt8(ascii: "D"), UInt8(ascii: "w"), UInt8(ascii: "W"), UInt8(ascii: "s"),
            UInt8(ascii: "S"):
            return true
        default: return false
        }
    }

    /// `\b \B`: `Refusal.wordBoundary`.
    @inlinable public static func isWordBoundaryEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "b") || byte == UInt8(ascii: "B")
    }

    /// `\1`…`\9`: a backreference. It compiles into a rule that never matches.
    @inlinable public static func isBackreference(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "1") && byte <= UInt8(ascii: "9")
    }

    /// ASCII lowercase; url-filters are case-insensitive unless `url-filter-is-case-sensitive`.
    @inlinable public static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
