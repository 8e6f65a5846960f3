import Testing
import URLFilterGrammar

/// The parser's JavaScript mode, which reads ABP's `/regex/` filters: what JavaScript adds that WebKit can
/// say becomes part of the tree, spelled as written; everything else is refused with its own reason.
@Suite struct URLFilterJavaScriptModeTests {
    private func parse(_ source: String) throws(URLFilterSyntaxError) -> URLFilterPattern {
        try URLFilterParser.parse(Array(source.utf8), mode: .javaScript)
    }

    private func byte(_ character: Unicode.Scalar) -> UInt8 { UInt8(ascii: character) }

    private func member(_ character: Unicode.Scalar, escaped: Bool = false) -> URLFilterClassByte {
        URLFilterClassByte(byte(character), escaped: escaped)
    }

    private func shorthand(_ member: URLFilterCharacterClass.Member, negated: Bool = false) -> URLFilterTerm {
        URLFilterTerm(.characterClass(URLFilterCharacterClass(negated: negated, members: [member])))
    }

    @Test func builtinClassEscapesBecomeClasses() throws {
        #expect(try parse(#"\d"#).terms == [shorthand(.digits)])
        #expect(try parse(#"\D"#).terms == [shorthand(.digits, negated: true)])
        #expect(try parse(#"\w+"#).terms == [URLFilterTerm(shorthand(.wordCharacters).atom, .oneOrMore)])
        #expect(try parse(#"\W"#).terms == [shorthand(.wordCharacters, negated: true)])
        #expect(URLFilterCharacterClass.Member.digits.ranges == [byte("0")...byte("9")])
        #expect(
            URLFilterCharacterClass.Member.wordCharacters.ranges == [
                byte("A")...byte("Z"), byte("a")...byte("z"), byte("0")...byte("9"), byte("_")...byte("_"),
            ])
    }

    @Test func escapedPunctuationIsALiteralThatRemembersItsBackslash() throws {
        #expect(
            try parse(#"\/a\."#).terms == [
                .init(.literal(byte("/"), escaped: true)), .init(.literal(byte("a"))),
                .init(.literal(byte("."), escaped: true)),
            ])
        #expect(try parse("a]}").terms.map(\.atom) == [.literal(byte("a")), .literal(byte("]")), .literal(byte("}"))])
    }

    @Test func classesTakeDigitAndWordEscapesAsMembers() throws {
        let written = try parse(#"[\d\w.\/-]"#)
        let members: [URLFilterCharacterClass.Member] = [
            .digits, .wordCharacters, .byte(member(".")), .byte(member("/", escaped: true)), .byte(member("-")),
        ]
        #expect(written.terms == [.init(.characterClass(.init(members: members)))])
        // After `\d` a `-` starts nothing: it is a member, as in JavaScript.
        #expect(
            try parse(#"[\d-z]"#).terms == [
                .init(.characterClass(.init(members: [.digits, .byte(member("-")), .byte(member("z"))])))
            ])
        #expect(
            try parse(#"[^\--\/]"#).terms == [
                .init(
                    .characterClass(
                        .init(negated: true, members: [.range(member("-", escaped: true), member("/", escaped: true))]))
                )
            ])
    }

    @Test func nonCapturingGroupsAreGroups() throws {
        let group = URLFilterTerm(.group([.init(.literal(byte("a")))]), .optional)
        #expect(try parse("^(?:a)?$") == URLFilterPattern(terms: [.init(.startOfLine), group, .init(.endOfLine)]))
        #expect(try parse("(?:a)?") == parse("(a)?"))
    }

    /// `|`, `{n,m}` and the anchors of each branch are kept in the tree for the converter to spell out.
    @Test func alternationCountsAndBranchAnchorsAreKept() throws {
        let a = URLFilterTerm(.literal(byte("a")))
        let b = URLFilterTerm(.literal(byte("b")))
        #expect(
            try parse("^a|b$").terms == [.init(.alternation([[.init(.startOfLine), a], [b, .init(.endOfLine)]]))])
        #expect(try parse("a$|b").terms == [.init(.alternation([[a, .init(.endOfLine)], [b]]))])
        #expect(try parse("(?:a|)b").terms == [.init(.alternation([[a], []])), b])
        #expect(
            try parse("x(^|a$)").terms.last == .init(.alternation([[.init(.startOfLine)], [a, .init(.endOfLine)]])))
        #expect(try parse("a{3}").terms == [.init(a.atom, .counted(min: 3, max: 3))])
        #expect(try parse("a{0,}").terms == [.init(a.atom, .counted(min: 0, max: nil))])
        #expect(try parse("(b){2,5}").terms == [.init(.group([b]), .counted(min: 2, max: 5))])
    }

    /// Each refusal, with its offset; the converter names each reason in its report.
    @Test func everyRefusalNamesItsReasonAndOffset() {
        let cases: [(String, URLFilterSyntaxError.Reason, Int)] = [
            ("", .refused(.emptyFilter), 0),
            ("a|b\u{E9}", .refused(.nonASCII), 3),
            ("a^", .refused(.misplacedStartOfLine), 1),
            ("a$b", .refused(.misplacedEndOfLine), 1),
            ("a{2,1}", .refused(.arbitraryRepetition), 1),
            ("a{x}", .refused(.arbitraryRepetition), 1),
            ("a{2", .refused(.arbitraryRepetition), 1),
            ("a{1234567}", .refused(.arbitraryRepetition), 1),
            ("a{2}?", .quantifierAfterQuantifier, 4),
            ("a|$+", .refused(.misplacedEndOfLine), 2),
            ("{a", .refused(.arbitraryRepetition), 0),
            ("a(?=b)", .lookaround, 1),
            ("(?!b)", .lookaround, 0),
            ("(?<=b)a", .lookaround, 0),
            ("(?<name>b)", .lookaround, 0),
            ("a(?i)", .refused(.group), 1),
            ("a(?", .refused(.group), 1),
            ("(?$", .refused(.group), 0),
            (#"(a)\1"#, .backreference, 3),
            (#"a\s"#, .refused(.builtinCharacterClass), 1),
            (#"a\S"#, .refused(.builtinCharacterClass), 1),
            (#"a\b"#, .refused(.wordBoundary), 1),
            (#"\Ba"#, .refused(.wordBoundary), 0),
            (#"a\n"#, .unsupportedEscape, 1),
            (#"a\0"#, .unsupportedEscape, 1),
            (#"a\ "#, .unsupportedEscape, 1),
            ("a\u{1}", .controlCharacter, 1),
            ("a()", .emptyGroup, 1),
            ("(?:)", .emptyGroup, 2),
            ("a)", .unopenedGroup, 1),
            ("(a", .unclosedGroup, 2),
            ("*a", .nothingToRepeat, 0),
            ("^+", .nothingToRepeat, 1),
            ("a+?", .quantifierAfterQuantifier, 2),
            ("a\\", .trailingBackslash, 1),
            // Every problem inside a class is one, at its `[`.
            (#"x[\s]"#, .invalidCharacterClass, 1),
            (#"x[\D]"#, .invalidCharacterClass, 1),
            (#"x[\b]"#, .invalidCharacterClass, 1),
            (#"x[a-\d]"#, .invalidCharacterClass, 1),
            ("x[z-a]", .invalidCharacterClass, 1),
            ("x[]", .invalidCharacterClass, 1),
            ("x[^]", .invalidCharacterClass, 1),
            ("x[a[]", .invalidCharacterClass, 1),
            ("x[ab", .invalidCharacterClass, 1),
        ]
        for (source, reason, position) in cases {
            do {
                _ = try parse(source)
                Issue.record("accepted \(source)")
            } catch {
                #expect(error == URLFilterSyntaxError(reason, at: position), "\(source)")
            }
        }
    }

    /// What JavaScript alone says is refused by the other modes, so no url-filter is read as JavaScript.
    @Test func onlyTheJavaScriptModeReadsJavaScript() {
        for source in [#"\d"#, #"[\w]"#] {
            for mode in [URLFilterParser.Mode.webKit, .strict] {
                #expect((try? URLFilterParser.parse(Array(source.utf8), mode: mode)) == nil, "\(source) \(mode)")
            }
        }
        #expect(throws: URLFilterSyntaxError(.refused(.group), at: 0)) {
            try URLFilterParser.parse(Array("(?=a)".utf8), mode: .strict)
        }
    }
}
