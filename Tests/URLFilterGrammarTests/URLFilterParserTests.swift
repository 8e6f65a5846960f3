import Testing
import URLFilterGrammar

/// The url-filter parser's tree for each construct of the grammar, and each refusal with its offset.
@Suite struct URLFilterParserTests {
    private func parse(_ filter: String) throws(URLFilterSyntaxError) -> URLFilterPattern {
        try URLFilterParser.parse(Array(filter.utf8))
    }

    private func refusal(_ filter: String) -> URLFilterSyntaxError? {
        do {
            _ = try parse(filter)
            return nil
        } catch {
            return error
        }
    }

    private func byte(_ character: Unicode.Scalar) -> UInt8 { UInt8(ascii: character) }

    @Test func literalsAnyAndEscapesAreOneAtomEach() throws {
        let pattern = try parse(#"a.\/\.b"#)
        #expect(pattern.terms == [.init(.literal(byte("a"))), .init(.any), .init(.literal(byte("/"))), .init(.literal(byte("."))), .init(.literal(byte("b")))])
        #expect(!pattern.anchoredStart && !pattern.anchoredEnd)
    }

    @Test func eachQuantifierBindsToTheAtomBeforeIt() throws {
        let pattern = try parse("a*b+c?d")
        #expect(pattern.terms.map(\.quantifier) == [.zeroOrMore, .oneOrMore, .optional, .one])
    }

    @Test func anchorsAreReadOnlyAtTheEnds() throws {
        let anchored = try parse("^ab$")
        #expect(anchored.anchoredStart && anchored.anchoredEnd)
        #expect(anchored.terms == [.init(.literal(byte("a"))), .init(.literal(byte("b")))])
        let escapedDollar = try parse(#"a\$"#)
        #expect(!escapedDollar.anchoredEnd)
        #expect(escapedDollar.terms == [.init(.literal(byte("a"))), .init(.literal(byte("$")))])
        let escapedBackslashThenDollar = try parse(#"a\\$"#)
        #expect(escapedBackslashThenDollar.anchoredEnd)
        #expect(escapedBackslashThenDollar.terms == [.init(.literal(byte("a"))), .init(.literal(byte("\\")))])
        #expect(try parse("^$") == URLFilterPattern(terms: [], anchoredStart: true, anchoredEnd: true))
    }

    @Test func groupsNestAndTakeQuantifiers() throws {
        let pattern = try parse("(a(?:b)*)+c")
        let inner = URLFilterTerm(.group([.init(.literal(byte("b")))]), .zeroOrMore)
        #expect(pattern.terms == [.init(.group([.init(.literal(byte("a"))), inner]), .oneOrMore), .init(.literal(byte("c")))])
        #expect(try parse("()").terms == [.init(.group([]))])
    }

    @Test func classesHoldRangesSinglesAndNegation() throws {
        let pattern = try parse(#"[^a-c_\]-]"#)
        let expected = URLFilterCharacterClass(negated: true, ranges: [byte("a")...byte("c"), byte("_")...byte("_"), byte("]")...byte("]"), byte("-")...byte("-")])
        #expect(pattern.terms == [.init(.characterClass(expected))])
        #expect(try parse("[]a]").terms == [.init(.characterClass(.init(ranges: [byte("]")...byte("]"), byte("a")...byte("a")])))])
        #expect(try parse(#"[!-\/]"#).terms == [.init(.characterClass(.init(ranges: [byte("!")...byte("/")])))])
    }

    @Test func backreferencesAreKeptForTheReaderToJudge() throws {
        #expect(try parse(#"(a)\1"#).terms.last == .init(.backreference(1)))
    }

    @Test func everyRefusalNamesItsReasonAndOffset() {
        let cases: [(String, URLFilterSyntaxError.Reason, Int)] = [
            ("", .refused(.emptyFilter), 0),
            ("ab\u{E9}", .refused(.nonASCII), 2),
            (#"a\d"#, .refused(.builtinCharacterClass), 1),
            (#"[a\w]"#, .refused(.builtinCharacterClass), 2),
            ("a^", .refused(.misplacedStartOfLine), 1),
            ("a$b", .refused(.misplacedEndOfLine), 1),
            (#"a\b"#, .refused(.wordBoundary), 1),
            ("a(?=b)", .refused(.group), 1),
            ("a|b", .refused(.disjunction), 1),
            ("a{2}", .refused(.arbitraryRepetition), 1),
            ("a)", .unbalancedParenthesis, 1),
            ("(a", .unbalancedParenthesis, 2),
            ("a*?", .quantifierAfterQuantifier, 2),
            ("*a", .nothingToRepeat, 0),
            ("a\\", .trailingBackslash, 1),
            ("[ab", .unterminatedCharacterClass, 3),
            ("[z-a]", .rangeOutOfOrder, 1),
        ]
        for (filter, reason, position) in cases {
            #expect(refusal(filter) == URLFilterSyntaxError(reason, at: position), "\(filter)")
        }
    }

    @Test func refusalsCarryWebKitsText() {
        #expect(URLFilterSyntaxError.Reason.refused(.disjunction).message == "Disjunctions are not supported yet")
        #expect(URLFilterSyntaxError(.nothingToRepeat, at: 3).description == "nothing to repeat at 3")
    }
}
