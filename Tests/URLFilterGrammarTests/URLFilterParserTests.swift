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
        #expect(
            pattern.terms == [
                .init(.literal(byte("a"))), .init(.any), .init(.literal(byte("/"), escaped: true)),
                .init(.literal(byte("."), escaped: true)), .init(.literal(byte("b"))),
            ])
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
        #expect(escapedDollar.terms == [.init(.literal(byte("a"))), .init(.literal(byte("$"), escaped: true))])
        let escapedBackslashThenDollar = try parse(#"a\\$"#)
        #expect(escapedBackslashThenDollar.anchoredEnd)
        #expect(
            escapedBackslashThenDollar.terms == [
                .init(.literal(byte("a"))), .init(.literal(byte("\\"), escaped: true)),
            ])
        #expect(try parse("^$") == URLFilterPattern(terms: [], anchoredStart: true, anchoredEnd: true))
    }

    @Test func groupsNestAndTakeQuantifiers() throws {
        let pattern = try parse("(a(?:b)*)+c")
        let inner = URLFilterTerm(.group([.init(.literal(byte("b")))]), .zeroOrMore)
        #expect(
            pattern.terms == [
                .init(.group([.init(.literal(byte("a"))), inner]), .oneOrMore), .init(.literal(byte("c"))),
            ])
        #expect(try parse("()").terms == [.init(.group([]))])
    }

    private func member(_ character: Unicode.Scalar, escaped: Bool = false) -> URLFilterClassByte {
        URLFilterClassByte(byte(character), escaped: escaped)
    }

    @Test func classesHoldRangesSinglesAndNegationAsWritten() throws {
        let pattern = try parse(#"[^a-c_\]-]"#)
        let expected = URLFilterCharacterClass(
            negated: true,
            members: [
                .range(member("a"), member("c")), .byte(member("_")), .byte(member("]", escaped: true)),
                .byte(member("-")),
            ])
        #expect(pattern.terms == [.init(.characterClass(expected))])
        #expect(
            expected.ranges == [
                byte("a")...byte("c"), byte("_")...byte("_"), byte("]")...byte("]"), byte("-")...byte("-"),
            ])
        #expect(
            try parse("[]a]").terms == [
                .init(.characterClass(.init(members: [.byte(member("]")), .byte(member("a"))])))
            ])
        #expect(
            try parse(#"[!-\/]"#).terms == [
                .init(.characterClass(.init(members: [.range(member("!"), member("/", escaped: true))])))
            ])
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
            ("a)", .unopenedGroup, 1),
            ("(a", .unclosedGroup, 2),
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

    @Test func strictModeAlsoRefusesWhatWebKitCompilesDead() {
        // The filter, the strict refusal, its offset, and whether WebKit's own grammar accepts the filter.
        let cases: [(String, URLFilterSyntaxError.Reason, Int, Bool)] = [
            ("a\u{7F}", .controlCharacter, 1, true),
            (#"(a)\1"#, .unsupportedEscape, 3, true),
            (#"a\n"#, .unsupportedEscape, 1, true),
            (#"a\d"#, .unsupportedEscape, 1, false),
            ("a(?:)", .emptyGroup, 3, true),
            ("()", .emptyGroup, 0, true),
            ("a(?$", .refused(.group), 1, false),
            ("{a", .refused(.arbitraryRepetition), 0, false),
            ("a*{", .refused(.arbitraryRepetition), 2, false),
            ("x[]a]", .invalidCharacterClass, 1, true),
            ("x[a[]", .invalidCharacterClass, 1, true),
            (#"x[a-\d]"#, .invalidCharacterClass, 1, true),
            ("x[z-a]", .invalidCharacterClass, 1, false),
            ("a|b\u{E9}", .refused(.disjunction), 1, false),
            ("ab\u{E9}|", .refused(.nonASCII), 2, false),
        ]
        for (filter, reason, position, webKitAccepts) in cases {
            #expect(((try? URLFilterParser.parse(Array(filter.utf8))) != nil) == webKitAccepts, "\(filter)")
            do {
                _ = try URLFilterParser.parse(Array(filter.utf8), mode: .strict)
                Issue.record("strict mode accepted \(filter)")
            } catch {
                #expect(error == URLFilterSyntaxError(reason, at: position), "\(filter)")
            }
        }
    }

    @Test func checkingGivesTheVerdictOfParsing() {
        for filter in ["", "a", "^a$", "a|b", "[a-", "(a)\\1", "x[]a]", "()"] {
            for mode in [URLFilterParser.Mode.webKit, .strict] {
                let parsed = Result { () throws(URLFilterSyntaxError) in
                    _ = try URLFilterParser.parse(Array(filter.utf8), mode: mode)
                }
                let checked = Array(filter.utf8).withUnsafeBufferPointer { bytes in
                    Result { () throws(URLFilterSyntaxError) in try URLFilterParser.check(bytes, mode: mode) }
                }
                #expect(parsed.error == checked.error, "\(filter) \(mode)")
            }
        }
    }

    @Test func refusalsCarryWebKitsText() {
        #expect(URLFilterSyntaxError.Reason.refused(.disjunction).message == "Disjunctions are not supported yet")
        #expect(URLFilterSyntaxError(.nothingToRepeat, at: 3).description == "nothing to repeat at 3")
    }
}

extension Result {
    fileprivate var error: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
