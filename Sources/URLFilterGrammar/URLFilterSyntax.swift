/// A url-filter read as WebKit's `URLFilterParser` reads it: a sequence of terms between two optional
/// anchors. What each atom matches (case folding, byte sets) is left to the reader of the tree.
public struct URLFilterPattern: Sendable, Equatable {
    public var terms: [URLFilterTerm]
    /// A leading `^`: a match starts at the first byte.
    public var anchoredStart: Bool
    /// A trailing unescaped `$`: a match ends at the last byte.
    public var anchoredEnd: Bool

    public init(terms: [URLFilterTerm], anchoredStart: Bool = false, anchoredEnd: Bool = false) {
        self.terms = terms
        self.anchoredStart = anchoredStart
        self.anchoredEnd = anchoredEnd
    }
}

/// One atom and how often it repeats.
public struct URLFilterTerm: Sendable, Equatable {
    public enum Quantifier: Sendable, Equatable {
        case one, optional, zeroOrMore, oneOrMore
        /// `{n}`, `{n,}` (no `max`) or `{n,m}`: JavaScript mode only, for a rewriter to spell out.
        case counted(min: Int, max: Int?)
    }

    public var atom: URLFilterAtom
    public var quantifier: Quantifier

    public init(_ atom: URLFilterAtom, _ quantifier: Quantifier = .one) {
        self.atom = atom
        self.quantifier = quantifier
    }
}

public enum URLFilterAtom: Sendable, Equatable {
    /// One byte, written as is or escaped (`\.`): readers match both alike, a rewriter keeps the spelling.
    case literal(UInt8, escaped: Bool = false)
    /// `.`
    case any
    /// `[…]`
    case characterClass(URLFilterCharacterClass)
    /// `(…)` or `(?:…)`: both only group. (Not `indirect`: the array already boxes the terms, and a boxed
    /// case would cost an allocation per atom even when only the verdict is wanted.)
    case group([URLFilterTerm])
    /// `\1`…`\9`: WebKit accepts it, and the rule it is in never matches.
    case backreference(UInt8)
    /// Branches separated by `|`, in a group or the whole pattern: JavaScript mode only, like the anchors.
    case alternation([[URLFilterTerm]])
    /// `^` first in a branch (JavaScript mode; WebKit's leading `^` is `URLFilterPattern.anchoredStart`).
    case startOfLine
    /// `$` last in a branch (JavaScript mode; WebKit's trailing `$` is `URLFilterPattern.anchoredEnd`).
    case endOfLine
}

/// `[…]`: the members as written (before any case folding), matching their bytes, or all others when negated.
public struct URLFilterCharacterClass: Sendable, Equatable {
    public enum Member: Sendable, Equatable {
        /// One byte: `a`, or `\.` when escaped.
        case byte(URLFilterClassByte)
        /// `a-z`; either end may be escaped (`!-\/`).
        case range(URLFilterClassByte, URLFilterClassByte)
        /// `\d`: `0-9`. JavaScript source only, like `wordCharacters`.
        case digits
        /// `\w`: `A-Za-z0-9_`.
        case wordCharacters

        /// The bytes the member lists.
        public var ranges: [ClosedRange<UInt8>] {
            switch self {
            case .byte(let byte): [byte.value...byte.value]
            case .range(let lower, let upper): [lower.value...upper.value]
            case .digits: [UInt8(ascii: "0")...UInt8(ascii: "9")]
            case .wordCharacters:
                [
                    UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_")...UInt8(ascii: "_"),
                ]
            }
        }
    }

    public var negated: Bool
    public var members: [Member]

    public init(negated: Bool = false, members: [Member]) {
        self.negated = negated
        self.members = members
    }

    /// The bytes listed, in the order written (a matcher's view: spelling left out).
    public var ranges: [ClosedRange<UInt8>] { members.flatMap(\.ranges) }
}

/// One byte of a class as written: as is, or after a backslash.
public struct URLFilterClassByte: Sendable, Equatable {
    public var value: UInt8
    public var escaped: Bool

    public init(_ value: UInt8, escaped: Bool = false) {
        self.value = value
        self.escaped = escaped
    }
}

/// Why a url-filter is outside the grammar, and the byte offset where the parser found out.
public struct URLFilterSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// One of WebKit's own refusals.
        case refused(URLFilterGrammar.Refusal)
        /// A `)` with no `(` before it.
        case unopenedGroup
        /// A `(` with no `)` after it, found at the end.
        case unclosedGroup
        /// In `URLFilterParser.Mode.strict` and `.javaScript` only, like the four below.
        case controlCharacter
        case unsupportedEscape
        case emptyGroup
        case invalidCharacterClass
        case quantifierAfterQuantifier
        case nothingToRepeat
        case trailingBackslash
        case unterminatedCharacterClass
        case rangeOutOfOrder
        /// In `URLFilterParser.Mode.javaScript` only: `(?=`, `(?!` or `(?<` (lookarounds, and named groups).
        case lookaround
        /// In `URLFilterParser.Mode.javaScript` only: `\1`…`\9`.
        case backreference

        /// WebKit's text for its refusals; a short description of the others.
        public var message: String {
            switch self {
            case .refused(let refusal): refusal.message
            case .unopenedGroup, .unclosedGroup: "unbalanced parenthesis"
            case .controlCharacter: "a control character"
            case .unsupportedEscape: "an escape of a letter, digit or control"
            case .emptyGroup: "an empty group"
            case .invalidCharacterClass: "an empty, unterminated or invalid character class"
            case .quantifierAfterQuantifier: "a quantifier cannot follow a quantifier"
            case .nothingToRepeat: "nothing to repeat"
            case .trailingBackslash: "a trailing backslash"
            case .unterminatedCharacterClass: "unterminated character class"
            case .rangeOutOfOrder: "a character class range out of order"
            case .lookaround: "a lookaround assertion"
            case .backreference: "a backreference"
            }
        }
    }

    public var reason: Reason
    public var position: Int

    public init(_ reason: Reason, at position: Int) {
        self.reason = reason
        self.position = position
    }

    public var description: String { "\(reason.message) at \(position)" }
}
