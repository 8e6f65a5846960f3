/// Parses a url-filter into a `URLFilterPattern`, refusing what WebKit's `URLFilterParser` refuses with
/// WebKit's reason and the offset of the byte that decided it. The one reader of the grammar's syntax:
/// the decision engine compiles its tree, the converter's validator judges by it (`check`, strict), and the
/// converter's `RegexFilterRewriter` reads ABP's JavaScript regexes with it (`javaScript`) and prints the tree.
public struct URLFilterParser: ~Copyable {
    /// How much of what WebKit compiles to accept.
    public enum Mode: Sendable {
        /// Exactly what WebKit's parser accepts.
        case webKit
        /// Also refuses what WebKit compiles into a rule that never matches or that JavaScript would read
        /// otherwise: control characters, escapes of letters, digits or controls (backreferences too),
        /// empty groups, `(?` without `:`, empty classes, `[` in a class, `{` anywhere. Problems are
        /// reported in the order of the bytes, every problem inside a class at its `[`.
        case strict
        /// An ABP `/regex/` in JavaScript syntax, read as strictly as `strict` (non-ASCII first, as WebKit does)
        /// where it means the same, with what JavaScript adds that WebKit can say: `\d \D \w \W`, in a
        /// class `\d \w` (not as a range end), become classes. `\s`, `\b`, backreferences and lookarounds
        /// are refused with their own reasons, any other `(?` as `group`. What WebKit cannot say but a
        /// rewriter can spell out is kept in the tree: `|` (`URLFilterAtom.alternation`), `{n,m}`
        /// (`Quantifier.counted`), and `^`/`$` at the start/end of any branch as anchor atoms (the pattern's
        /// own anchor flags stay false).
        case javaScript
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    /// `strict` or `javaScript`: refuses what WebKit compiles dead.
    private let strict: Bool
    private let javaScript: Bool
    /// Refuses non-ASCII before anything else, as WebKit does (strict reports problems in byte order).
    private let nonASCIIFirst: Bool
    /// False when only the verdict is wanted: nothing is appended, so checking allocates nothing.
    private let buildsTree: Bool
    private var position = 0

    public static func parse(_ bytes: [UInt8], mode: Mode = .webKit) throws(URLFilterSyntaxError) -> URLFilterPattern {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(URLFilterSyntaxError) -> URLFilterPattern in
                var parser = URLFilterParser(bytes: buffer, mode: mode, buildsTree: true)
                return try parser.parseFilter()
            }
        }
        return try result.get()
    }

    /// The verdict of `parse` without the tree.
    /// - Parameter quantifiedPrefix: the length of a leading pattern known to be accepted, anchored with
    ///   `^` and ending in a quantified term outside any group (the converter's host anchor); parsing
    ///   resumes after it, as if it had just been read.
    public static func check(_ bytes: UnsafeBufferPointer<UInt8>, mode: Mode, quantifiedPrefix: Int = 0)
        throws(URLFilterSyntaxError)
    {
        var parser = URLFilterParser(bytes: bytes, mode: mode, buildsTree: false)
        _ = try parser.parseFilter(resumingAt: quantifiedPrefix)
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, mode: Mode, buildsTree: Bool) {
        self.bytes = bytes
        self.strict = mode != .webKit
        self.javaScript = mode == .javaScript
        self.nonASCIIFirst = mode != .strict
        self.buildsTree = buildsTree
    }

    private mutating func parseFilter(resumingAt prefix: Int = 0) throws(URLFilterSyntaxError) -> URLFilterPattern {
        guard !bytes.isEmpty else { throw URLFilterSyntaxError(.refused(.emptyFilter), at: 0) }
        if nonASCIIFirst, let nonASCII = bytes.firstIndex(where: { $0 >= 0x80 }) {
            throw URLFilterSyntaxError(.refused(.nonASCII), at: nonASCII)
        }
        var pattern = URLFilterPattern(terms: [])
        if javaScript {
            let branches = try parseBranches(until: bytes.count, inGroup: false)
            pattern.terms = branches.count == 1 ? branches[0] : [URLFilterTerm(.alternation(branches))]
            return pattern
        }
        if bytes[0] == UInt8(ascii: "^") {
            pattern.anchoredStart = true
            position = max(1, prefix)
        }
        var end = bytes.count
        if end > position, bytes[end - 1] == UInt8(ascii: "$"), !isEscaped(at: end - 1) {
            pattern.anchoredEnd = true
            end -= 1
        }
        if prefix > 0, position < end, URLFilterGrammar.isQuantifier(bytes[position]) {
            throw failure(.quantifierAfterQuantifier, at: position)
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

    /// JavaScript mode: the `|`-separated branches up to `end`, or in a group up to (not past) its `)`.
    private mutating func parseBranches(until end: Int, inGroup: Bool) throws(URLFilterSyntaxError)
        -> [[URLFilterTerm]]
    {
        var branches = [try parseSequence(until: end, inGroup: inGroup)]
        while position < end, bytes[position] == UInt8(ascii: "|") {
            position += 1
            branches.append(try parseSequence(until: end, inGroup: inGroup))
        }
        return branches
    }

    /// Terms up to `end`, or in a group up to (not past) its `)`; in JavaScript mode up to (not past) a `|`.
    private mutating func parseSequence(until end: Int, inGroup: Bool) throws(URLFilterSyntaxError) -> [URLFilterTerm] {
        var terms: [URLFilterTerm] = []
        while position < end {
            if bytes[position] == UInt8(ascii: ")") {
                if inGroup { return terms }
                throw failure(.unopenedGroup, at: position)
            }
            if javaScript, bytes[position] == UInt8(ascii: "|") { return terms }
            let atom = try parseAtom(end: end, atBranchStart: terms.isEmpty)
            let quantifier = try parseQuantifier(end: end)
            if quantifier != .one, atom == .startOfLine || atom == .endOfLine {
                throw failure(.nothingToRepeat, at: position - 1)
            }
            if buildsTree { terms.append(URLFilterTerm(atom, quantifier)) }
        }
        if inGroup { throw failure(.unclosedGroup, at: end) }
        return terms
    }

    private mutating func parseQuantifier(end: Int) throws(URLFilterSyntaxError) -> URLFilterTerm.Quantifier {
        guard position < end else { return .one }
        let quantifier: URLFilterTerm.Quantifier
        switch bytes[position] {
        case UInt8(ascii: "*"): quantifier = .zeroOrMore
        case UInt8(ascii: "+"): quantifier = .oneOrMore
        case UInt8(ascii: "?"): quantifier = .optional
        case UInt8(ascii: "{"):
            guard javaScript else { throw failure(.arbitraryRepetition, at: position) }
            quantifier = try parseCount(end: end)
        default: return .one
        }
        position += 1
        if position < end, URLFilterGrammar.isQuantifier(bytes[position]) {
            throw failure(.quantifierAfterQuantifier, at: position)
        }
        return quantifier
    }

    /// `{n}`, `{n,}` or `{n,m}` from its `{`, leaving `position` on its `}`. Anything else (JavaScript's
    /// literal `{`, counts out of order or too long to read) is refused as `arbitraryRepetition`.
    private mutating func parseCount(end: Int) throws(URLFilterSyntaxError) -> URLFilterTerm.Quantifier {
        let start = position
        var cursor = position + 1
        func number() -> Int? {
            let first = cursor
            var value = 0
            while cursor < end, cursor - first < 6, bytes[cursor] >= UInt8(ascii: "0"),
                bytes[cursor] <= UInt8(ascii: "9")
            {
                value = value * 10 + Int(bytes[cursor] - UInt8(ascii: "0"))
                cursor += 1
            }
            return cursor > first ? value : nil
        }
        guard let min = number() else { throw failure(.arbitraryRepetition, at: start) }
        var max: Int? = min
        if cursor < end, bytes[cursor] == UInt8(ascii: ",") {
            cursor += 1
            max = number()
        }
        guard cursor < end, bytes[cursor] == UInt8(ascii: "}"), max.map({ min <= $0 }) ?? true else {
            throw failure(.arbitraryRepetition, at: start)
        }
        position = cursor
        return .counted(min: min, max: max)
    }

    private mutating func parseAtom(end: Int, atBranchStart: Bool) throws(URLFilterSyntaxError) -> URLFilterAtom {
        let start = position
        let byte = bytes[position]
        position += 1
        if strict {
            if byte >= 0x80 { throw failure(.nonASCII, at: start) }
            if byte < 0x20 || byte == 0x7F { throw failure(.controlCharacter, at: start) }
            if byte == UInt8(ascii: "{") { throw failure(.arbitraryRepetition, at: start) }
        }
        switch byte {
        case UInt8(ascii: "."):
            return .any
        case UInt8(ascii: "["):
            return .characterClass(try parseClass(end: end))
        case UInt8(ascii: "("):
            try skipNonCapturingMark(groupAt: start, end: end)
            if strict, position < bytes.count, bytes[position] == UInt8(ascii: ")") {
                throw failure(.emptyGroup, at: position - 1)
            }
            if javaScript {
                let branches = try parseBranches(until: end, inGroup: true)
                position += 1  // the closing parenthesis
                return branches.count == 1 ? .group(branches[0]) : .alternation(branches)
            }
            let terms = try parseSequence(until: end, inGroup: true)
            position += 1  // the closing parenthesis
            return .group(terms)
        case UInt8(ascii: "|"):
            throw failure(.disjunction, at: start)
        case UInt8(ascii: "^"):
            if javaScript, atBranchStart { return .startOfLine }
            throw failure(.misplacedStartOfLine, at: start)
        case UInt8(ascii: "$"):
            if javaScript,
                position == end || bytes[position] == UInt8(ascii: "|") || bytes[position] == UInt8(ascii: ")")
            {
                return .endOfLine
            }
            throw failure(.misplacedEndOfLine, at: start)
        case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"), UInt8(ascii: "{"):
            throw failure(.nothingToRepeat, at: start)
        case UInt8(ascii: "\\"):
            guard position < end else { throw failure(.trailingBackslash, at: start) }
            let escaped = bytes[position]
            position += 1
            if javaScript { return try javaScriptEscape(escaped, at: start) }
            if strict, !URLFilterGrammar.isEscapablePunctuation(escaped) {
                throw failure(.unsupportedEscape, at: start)
            }
            if URLFilterGrammar.isBackreference(escaped) { return .backreference(escaped - UInt8(ascii: "0")) }
            if URLFilterGrammar.isBuiltinClassEscape(escaped) { throw failure(.builtinCharacterClass, at: start) }
            if URLFilterGrammar.isWordBoundaryEscape(escaped) { throw failure(.wordBoundary, at: start) }
            return .literal(escaped, escaped: true)
        default:
            return .literal(byte)
        }
    }

    /// An escape in JavaScript source: `\d \D \w \W` are classes, escaped punctuation a literal, the rest
    /// refused with the reason the converter reports it under.
    private func javaScriptEscape(_ escaped: UInt8, at start: Int) throws(URLFilterSyntaxError) -> URLFilterAtom {
        switch escaped {
        case UInt8(ascii: "d"): return .characterClass(.init(members: [.digits]))
        case UInt8(ascii: "D"): return .characterClass(.init(negated: true, members: [.digits]))
        case UInt8(ascii: "w"): return .characterClass(.init(members: [.wordCharacters]))
        case UInt8(ascii: "W"): return .characterClass(.init(negated: true, members: [.wordCharacters]))
        case UInt8(ascii: "s"), UInt8(ascii: "S"): throw failure(.builtinCharacterClass, at: start)
        case _ where URLFilterGrammar.isWordBoundaryEscape(escaped): throw failure(.wordBoundary, at: start)
        case _ where URLFilterGrammar.isBackreference(escaped): throw failure(.backreference, at: start)
        case _ where URLFilterGrammar.isEscapablePunctuation(escaped): return .literal(escaped, escaped: true)
        default: throw failure(.unsupportedEscape, at: start)
        }
    }

    /// `(?:` marks a group that does not capture; any other `(?` is refused (JavaScript's lookarounds with
    /// their own reason). Strict looks past a trailing `$` for the `:`.
    private mutating func skipNonCapturingMark(groupAt start: Int, end: Int) throws(URLFilterSyntaxError) {
        let limit = strict ? bytes.count : end
        guard position < limit, bytes[position] == UInt8(ascii: "?") else { return }
        if !strict && position + 1 >= limit { return }
        guard position + 1 < limit, bytes[position + 1] == UInt8(ascii: ":") else {
            if javaScript, position + 1 < limit, Self.startsLookaround(bytes[position + 1]) {
                throw failure(.lookaround, at: start)
            }
            throw failure(.group, at: start)
        }
        position += 2
    }

    /// The byte after `(?` in `(?=`, `(?!`, `(?<`.
    private static func startsLookaround(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "=") || byte == UInt8(ascii: "!") || byte == UInt8(ascii: "<")
    }

    /// `[…]` after its `[`: a leading `^` negates, a leading `]` is a member, `\` escapes one byte
    /// (`\d \w \s` and their negations are refused; JavaScript reads `\d \w`), `a-z` is a range unless the
    /// `-` is last. Strict reports any problem as `invalidCharacterClass` at the `[`.
    private mutating func parseClass(end: Int) throws(URLFilterSyntaxError) -> URLFilterCharacterClass {
        let start = position - 1
        do {
            return try parseClassBody(end: end)
        } catch {
            throw strict ? failure(.invalidCharacterClass, at: start) : error
        }
    }

    private mutating func parseClassBody(end: Int) throws(URLFilterSyntaxError) -> URLFilterCharacterClass {
        var characterClass = URLFilterCharacterClass(members: [])
        if position < end, bytes[position] == UInt8(ascii: "^") {
            characterClass.negated = true
            position += 1
        }
        if strict, position < end, bytes[position] == UInt8(ascii: "]") {
            throw failure(.invalidCharacterClass, at: position)
        }
        var first = true
        while true {
            guard position < end else { throw failure(.unterminatedCharacterClass, at: position) }
            if bytes[position] == UInt8(ascii: "]") && !first {
                position += 1
                return characterClass
            }
            first = false
            if javaScript, let shorthand = javaScriptClassShorthand(end: end) {
                if buildsTree { characterClass.members.append(shorthand) }
                continue
            }
            let lowerStart = position
            let lower = try classMember(end: end)
            guard position + 1 < end, bytes[position] == UInt8(ascii: "-"), bytes[position + 1] != UInt8(ascii: "]")
            else {
                if buildsTree { characterClass.members.append(.byte(lower)) }
                continue
            }
            position += 1
            let upper = try classMember(end: end, isRangeEnd: true)
            guard lower.value <= upper.value else { throw failure(.rangeOutOfOrder, at: lowerStart) }
            if buildsTree { characterClass.members.append(.range(lower, upper)) }
        }
    }

    /// `\d` or `\w` where a member starts (a `-` after one is a literal, as in JavaScript).
    private mutating func javaScriptClassShorthand(end: Int) -> URLFilterCharacterClass.Member? {
        guard position + 1 < end, bytes[position] == UInt8(ascii: "\\") else { return nil }
        let member: URLFilterCharacterClass.Member
        switch bytes[position + 1] {
        case UInt8(ascii: "d"): member = .digits
        case UInt8(ascii: "w"): member = .wordCharacters
        default: return nil
        }
        position += 2
        return member
    }

    /// One byte of a class, escaped or not. `\d \w \s` are refused where a range starts, not where it ends.
    private mutating func classMember(end: Int, isRangeEnd: Bool = false) throws(URLFilterSyntaxError)
        -> URLFilterClassByte
    {
        let start = position
        var byte = bytes[position]
        position += 1
        if strict, byte >= 0x80 || byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "[") {
            throw failure(.invalidCharacterClass, at: start)
        }
        guard byte == UInt8(ascii: "\\") else { return URLFilterClassByte(byte) }
        guard position < end else { throw failure(.unterminatedCharacterClass, at: position) }
        byte = bytes[position]
        position += 1
        if strict, !URLFilterGrammar.isEscapablePunctuation(byte) { throw failure(.invalidCharacterClass, at: start) }
        if !isRangeEnd, URLFilterGrammar.isBuiltinClassEscape(byte) { throw failure(.builtinCharacterClass, at: start) }
        return URLFilterClassByte(byte, escaped: true)
    }
}
