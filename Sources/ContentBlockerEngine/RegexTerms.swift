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

/// Gives the byte sets the engine matches to the terms of `URLFilterParser`'s tree: the grammar's one
/// parser decides what is a url-filter; this decides what each atom matches.
struct RegexTerms {
    struct Parsed {
        var terms: [RegexTerm]
        var anchoredStart: Bool
        var anchoredEnd: Bool
    }

    static func parse(_ bytes: [UInt8], caseSensitive: Bool) throws(URLFilterError) -> Parsed {
        let pattern: URLFilterPattern
        do {
            pattern = try URLFilterParser.parse(bytes)
        } catch {
            throw URLFilterError(pattern: String(decoding: bytes, as: UTF8.self), reason: error.reason.message)
        }
        let mapper = RegexTerms(caseSensitive: caseSensitive)
        return Parsed(
            terms: mapper.terms(pattern.terms), anchoredStart: pattern.anchoredStart, anchoredEnd: pattern.anchoredEnd)
    }

    let caseSensitive: Bool

    private func terms(_ terms: [URLFilterTerm]) -> [RegexTerm] {
        terms.map { RegexTerm(atom: atom($0.atom), quantifier: quantifier($0.quantifier)) }
    }

    private func quantifier(_ quantifier: URLFilterTerm.Quantifier) -> RegexTerm.Quantifier {
        switch quantifier {
        case .one: .one
        case .optional: .optional
        case .zeroOrMore: .zeroOrMore
        case .oneOrMore: .oneOrMore
        case .counted: preconditionFailure("counted repetition is parsed in JavaScript mode only")
        }
    }

    private func atom(_ atom: URLFilterAtom) -> RegexAtom {
        switch atom {
        case .literal(let byte, _): .set(literal(byte))
        case .any: .set(ByteSet.all)
        case .characterClass(let characterClass): .set(set(characterClass))
        case .group(let inner): .group(terms(inner))
        case .backreference: .never
        case .alternation, .startOfLine, .endOfLine:
            preconditionFailure("alternation and anchor atoms are parsed in JavaScript mode only")
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

    /// Case folding comes before negation, so `[^a]` does not match `A` in a case-insensitive filter.
    private func set(_ characterClass: URLFilterCharacterClass) -> ByteSet {
        var set = ByteSet()
        for range in characterClass.ranges {
            for member in range { set.insert(member) }
        }
        if !caseSensitive { set = set.caseFolded() }
        return characterClass.negated ? set.inverted() : set
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
                term.quantifier != .zeroOrMore
            else {
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
