/// Parses a url-filter into a `URLFilterPattern`, refusing what WebKit's `URLFilterParser` refuses with
/// WebKit's reason and the offset of the byte that decided it. The one reader of the grammar's syntax:
/// the decision engine compiles its tree, the converter's validator judges by it.
public struct URLFilterParser {
    private let bytes: [UInt8]
    private var position = 0

    public static func parse(_ bytes: [UInt8]) throws(URLFilterSyntaxError) -> URLFilterPattern {
        var parser = URLFilterParser(bytes: bytes)
        return try parser.parseFilter()
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private mutating func parseFilter() throws(URLFilterSyntaxError) -> URLFilterPattern {
        guard !bytes.isEmpty else { throw URLFilterSyntaxError(.refused(.emptyFilter), at: 0) }
        if let nonASCII = bytes.firstIndex(where: { $0 >= 0x80 }) {
            throw URLFilterSyntaxError(.refused(.nonASCII), at: nonASCII)
        }
        var pattern = URLFilterPattern(terms: [])
        if bytes[0] == UInt8(ascii: "^") {
            pattern.anchoredStart = true
            position = 1
        }
        var end = bytes.count
        if end > position, bytes[end - 1] == UInt8(ascii: "$"), !isEscaped(at: end - 1) {
            pattern.anchoredEnd = true
            end -= 1
        }
        pattern.terms = try parseSequence(until: end, inGroup: false)
        return pattern
    }

    /// Whether an odd run of backslashes precedes `index`.
    private func isEscaped(at index: Int) -> Bool {
        var backslashes = 0
        var cursor = index - 1
        while cursor >= 0, bytes[cursor] == UInt8(ascii: "\\") {
            backslashes += 1
            cursor -= 1
        }
        return backslashes % 2 == 1
    }

    private func failure(_ reason: URLFilterSyntaxError.Reason, at index: Int) -> URLFilterSyntaxError {
        URLFilterSyntaxError(reason, at: index)
    }

    private func failure(_ refusal: URLFilterGrammar.Refusal, at index: Int) -> URLFilterSyntaxError {
        URLFilterSyntaxError(.refused(refusal), at: index)
    }

    /// Terms up to `end`, or in a group up to (not past) its `)`.
    private mutating func parseSequence(until end: Int, inGroup: Bool) throws(URLFilterSyntaxError) -> [URLFilterTerm] {
        var terms: [URLFilterTerm] = []
        while position < end {
            if bytes[position] == UInt8(ascii: ")") {
                if inGroup { return terms }
                throw failure(.unbalancedParenthesis, at: position)
            }
            let atom = try parseAtom(end: end)
            terms.append(URLFilterTerm(atom, try parseQuantifier(end: end)))
        }
        if inGroup { throw failure(.unbalancedParenthesis, at: end) }
        return terms
    }

    private mutating func parseQuantifier(end: Int) throws(URLFilterSyntaxError) -> URLFilterTerm.Quantifier {
        guard position < end else { return .one }
        let quantifier: URLFilterTerm.Quantifier
        switch bytes[position] {
        case UInt8(ascii: "*"): quantifier = .zeroOrMore
        case UInt8(ascii: "+"): quantifier = .oneOrMore
        case UInt8(ascii: "?"): quantifier = .optional
        case UInt8(ascii: "{"): throw failure(.arbitraryRepetition, at: position)
        default: return .one
        }
        position += 1
        if position < end, URLFilterGrammar.isQuantifier(bytes[position]) {
            throw failure(.quantifierAfterQuantifier, at: position)
        }
        return quantifier
    }

    private mutating func parseAtom(end: Int) throws(URLFilterSyntaxError) -> URLFilterAtom {
        let start = position
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "."):
            return .any
        case UInt8(ascii: "["):
            return .characterClass(try parseClass(end: end))
        case UInt8(ascii: "("):
            if position + 1 < end, bytes[position] == UInt8(ascii: "?") {
                guard bytes[position + 1] == UInt8(ascii: ":") else { throw failure(.group, at: start) }
                position += 2
            }
            let terms = try parseSequence(until: end, inGroup: true)
            position += 1  // the closing parenthesis
            return .group(terms)
        case UInt8(ascii: "|"):
            throw failure(.disjunction, at: start)
        case UInt8(ascii: "^"):
            throw failure(.misplacedStartOfLine, at: start)
        case UInt8(ascii: "$"):
            throw failure(.misplacedEndOfLine, at: start)
        case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"), UInt8(ascii: "{"):
            throw failure(.nothingToRepeat, at: start)
        case UInt8(ascii: "\\"):
            guard position < end else { throw failure(.trailingBackslash, at: start) }
            let escaped = bytes[position]
            position += 1
            if URLFilterGrammar.isBackreference(escaped) { return .backreference(escaped - UInt8(ascii: "0")) }
            if URLFilterGrammar.isBuiltinClassEscape(escaped) { throw failure(.builtinCharacterClass, at: start) }
            if URLFilterGrammar.isWordBoundaryEscape(escaped) { throw failure(.wordBoundary, at: start) }
            return .literal(escaped)
        default:
            return .literal(byte)
        }
    }

    /// `[…]` after its `[`: a leading `^` negates, a leading `]` is a member, `\` escapes one byte
    /// (`\d \w \s` and their negations are refused), `a-z` is a range unless the `-` is last.
    private mutating func parseClass(end: Int) throws(URLFilterSyntaxError) -> URLFilterCharacterClass {
        var characterClass = URLFilterCharacterClass(ranges: [])
        if position < end, bytes[position] == UInt8(ascii: "^") {
            characterClass.negated = true
            position += 1
        }
        var first = true
        while true {
            guard position < end else { throw failure(.unterminatedCharacterClass, at: position) }
            if bytes[position] == UInt8(ascii: "]") && !first {
                position += 1
                return characterClass
            }
            first = false
            let lowerStart = position
            var lower = bytes[position]
            position += 1
            if lower == UInt8(ascii: "\\") {
                guard position < end else { throw failure(.unterminatedCharacterClass, at: position) }
                lower = bytes[position]
                position += 1
                if URLFilterGrammar.isBuiltinClassEscape(lower) { throw failure(.builtinCharacterClass, at: lowerStart) }
            }
            guard position + 1 < end, bytes[position] == UInt8(ascii: "-"), bytes[position + 1] != UInt8(ascii: "]") else {
                characterClass.ranges.append(lower...lower)
                continue
            }
            var upper = bytes[position + 1]
            position += 2
            if upper == UInt8(ascii: "\\") {
                guard position < end else { throw failure(.unterminatedCharacterClass, at: position) }
                upper = bytes[position]
                position += 1
            }
            guard lower <= upper else { throw failure(.rangeOutOfOrder, at: lowerStart) }
            characterClass.ranges.append(lower...upper)
        }
    }
}
