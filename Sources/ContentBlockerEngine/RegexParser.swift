import URLFilterGrammar

/// One term of a url-filter: an atom and how often it repeats.
struct RegexTerm: Sendable, Equatable {
    enum Quantifier: Sendable, Equatable { case one, optional, zeroOrMore, oneOrMore }
    var atom: RegexAtom
    var quantifier: Quantifier
}

indirect enum RegexAtom: Sendable, Equatable {
    case set(ByteSet)
    case group([RegexTerm])
    /// A backreference: WebKit accepts it, and it matches nothing.
    case never
}

/// Parses WebKit's url-filter subset (`URLFilterGrammar`) into terms, rejecting what WebKit rejects
/// with WebKit's reason.
struct RegexParser {
    let bytes: [UInt8]
    let caseSensitive: Bool
    var position = 0

    struct Parsed {
        var terms: [RegexTerm]
        var anchoredStart: Bool
        var anchoredEnd: Bool
    }

    init(bytes: [UInt8], caseSensitive: Bool) {
        self.bytes = bytes
        self.caseSensitive = caseSensitive
    }

    mutating func parseFilter() throws(URLFilterError) -> Parsed {
        guard !bytes.isEmpty else { throw error(.emptyFilter) }
        guard bytes.allSatisfy({ $0 < 0x80 }) else { throw error(.nonASCII) }
        var anchoredStart = false
        if bytes.first == UInt8(ascii: "^") {
            anchoredStart = true
            position = 1
        }
        var end = bytes.count
        var anchoredEnd = false
        if end > position, bytes[end - 1] == UInt8(ascii: "$"), !isEscaped(at: end - 1) {
            anchoredEnd = true
            end -= 1
        }
        let terms = try parseSequence(until: end, inGroup: false)
        return Parsed(terms: terms, anchoredStart: anchoredStart, anchoredEnd: anchoredEnd)
    }

    private func isEscaped(at index: Int) -> Bool {
        var backslashes = 0
        var cursor = index - 1
        while cursor >= 0, bytes[cursor] == UInt8(ascii: "\\") {
            backslashes += 1
            cursor -= 1
        }
        return backslashes % 2 == 1
    }

    private func error(_ reason: String) -> URLFilterError {
        URLFilterError(pattern: String(decoding: bytes, as: UTF8.self), reason: reason)
    }

    private func error(_ refusal: URLFilterGrammar.Refusal) -> URLFilterError {
        error(refusal.message)
    }

    private mutating func parseSequence(until end: Int, inGroup: Bool) throws(URLFilterError) -> [RegexTerm] {
        var terms: [RegexTerm] = []
        while position < end {
            let byte = bytes[position]
            if byte == UInt8(ascii: ")") {
                if inGroup { return terms }
                throw error("unbalanced parenthesis")
            }
            let atom = try parseAtom(end: end)
            var quantifier = RegexTerm.Quantifier.one
            if position < end {
                switch bytes[position] {
                case UInt8(ascii: "*"): quantifier = .zeroOrMore
                case UInt8(ascii: "+"): quantifier = .oneOrMore
                case UInt8(ascii: "?"): quantifier = .optional
                case UInt8(ascii: "{"): throw error(.arbitraryRepetition)
                default: break
                }
                if quantifier != .one {
                    position += 1
                    if position < end, URLFilterGrammar.isQuantifier(bytes[position]) {
                        throw error("a quantifier cannot follow a quantifier")
                    }
                }
            }
            terms.append(RegexTerm(atom: atom, quantifier: quantifier))
        }
        if inGroup { throw error("unbalanced parenthesis") }
        return terms
    }

    private mutating func parseAtom(end: Int) throws(URLFilterError) -> RegexAtom {
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "."):
            return .set(ByteSet.all)
        case UInt8(ascii: "["):
            return .set(try parseClass(end: end))
        case UInt8(ascii: "("):
            if position + 1 < end, bytes[position] == UInt8(ascii: "?") {
                guard bytes[position + 1] == UInt8(ascii: ":") else { throw error(.group) }
                position += 2
            }
            let terms = try parseSequence(until: end, inGroup: true)
            position += 1  // the closing parenthesis
            return .group(terms)
        case UInt8(ascii: "|"):
            throw error(.disjunction)
        case UInt8(ascii: "^"):
            throw error(.misplacedStartOfLine)
        case UInt8(ascii: "$"):
            throw error(.misplacedEndOfLine)
        case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"), UInt8(ascii: "{"):
            throw error("nothing to repeat")
        case UInt8(ascii: "\\"):
            guard position < end else { throw error("a trailing backslash") }
            let escaped = bytes[position]
            position += 1
            if URLFilterGrammar.isBackreference(escaped) { return .never }
            return .set(try escapedSet(escaped))
        default:
            return .set(literal(byte))
        }
    }

    private func literal(_ byte: UInt8) -> ByteSet {
        var set = ByteSet()
        set.insert(byte)
        let lower = URLFilterGrammar.lowercase(byte)
        if !caseSensitive, lower >= UInt8(ascii: "a"), lower <= UInt8(ascii: "z") {
            set.insert(lower)
            set.insert(lower - 0x20)
        }
        return set
    }

    private func escapedSet(_ escaped: UInt8) throws(URLFilterError) -> ByteSet {
        if URLFilterGrammar.isBuiltinClassEscape(escaped) { throw error(.builtinCharacterClass) }
        if URLFilterGrammar.isWordBoundaryEscape(escaped) { throw error(.wordBoundary) }
        return literal(escaped)
    }

    /// `[...]`: ranges, escapes and a leading `^`. Case folding comes before negation, so `[^a]` does
    /// not match `A` in a case-insensitive filter.
    private mutating func parseClass(end: Int) throws(URLFilterError) -> ByteSet {
        var set = ByteSet()
        var negated = false
        if position < end, bytes[position] == UInt8(ascii: "^") {
            negated = true
            position += 1
        }
        var first = true
        while true {
            guard position < end else { throw error("unterminated character class") }
            var byte = bytes[position]
            if byte == UInt8(ascii: "]") && !first {
                position += 1
                break
            }
            first = false
            position += 1
            if byte == UInt8(ascii: "\\") {
                guard position < end else { throw error("unterminated character class") }
                byte = bytes[position]
                position += 1
                if URLFilterGrammar.isBuiltinClassEscape(byte) { throw error(.builtinCharacterClass) }
            }
            if position + 1 < end, bytes[position] == UInt8(ascii: "-"), bytes[position + 1] != UInt8(ascii: "]") {
                var upper = bytes[position + 1]
                position += 2
                if upper == UInt8(ascii: "\\") {
                    guard position < end else { throw error("unterminated character class") }
                    upper = bytes[position]
                    position += 1
                }
                guard byte <= upper else { throw error("a character class range out of order") }
                for member in byte...upper { set.insert(member) }
            } else {
                set.insert(byte)
            }
        }
        if !caseSensitive { set = set.caseFolded() }
        return negated ? set.inverted() : set
    }

    /// Lowercased literal runs that every match contains: single-byte atoms at the top level that
    /// must occur (no `?` or `*`); a `+` atom or any other atom ends the run.
    static func requiredLiterals(_ terms: [RegexTerm]) -> [[UInt8]] {
        var runs: [[UInt8]] = []
        var current: [UInt8] = []
        func flush() {
            if !current.isEmpty { runs.append(current) }
            current = []
        }
        for term in terms {
            guard case .set(let set) = term.atom, let byte = lowercasedLiteral(set), term.quantifier != .optional,
                  term.quantifier != .zeroOrMore else {
                flush()
                continue
            }
            current.append(byte)
            if term.quantifier == .oneOrMore { flush() }
        }
        flush()
        return runs
    }

    /// The lowercase byte a literal set stands for: one byte, or one ASCII letter in both cases.
    private static func lowercasedLiteral(_ set: ByteSet) -> UInt8? {
        guard let lowest = set.first else { return nil }
        switch set.count {
        case 1:
            return URLFilterGrammar.lowercase(lowest)
        case 2:
            // An uppercase letter sorts first; its pair is the lowercase one.
            let isLetterPair = lowest >= UInt8(ascii: "A") && lowest <= UInt8(ascii: "Z") && set.contains(lowest | 0x20)
            return isLetterPair ? lowest | 0x20 : nil
        default:
            return nil
        }
    }
}
