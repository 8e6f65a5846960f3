import TestSupport
import Testing
import URLFilterGrammar

@testable import Converter

/// ABP `/regex/` bodies printed in WebKit's syntax as written, and each refusal under its report name.
@Suite struct RegexFilterRewriterTests {
    private func rewrite(_ source: String) -> Result<[String], SkipReasonError> {
        RegexFilterRewriter.rewrite(Array(source.utf8)[...]).map { filters in
            filters.map { String(decoding: $0, as: UTF8.self) }
        }
    }

    @Test func printsEachAtomAsWrittenButInWebKitsSpelling() {
        let cases: [(String, String)] = [
            (#"^https?:\/\/ads\d+\.example\//"#, #"^https?://ads[0-9]+\.example//"#),
            (#"\D\w\W"#, #"[^0-9][A-Za-z0-9_][^A-Za-z0-9_]"#),
            (#"(?:a(b)?)*c$"#, #"(a(b)?)*c$"#),
            (#"a]b}c-\-"#, #"a\]b\}c-\-"#),
            (#"[^\d\w\/\]a-a\.-z-]"#, #"[^0-9A-Za-z0-9_/\]a-a\.-z-]"#),
            ("^$", "^$"),
        ]
        for (source, expected) in cases {
            #expect(rewrite(source) == .success([expected]), "\(source)")
        }
    }

    @Test func everyRefusalHasItsSkipReason() {
        let cases: [(String, SkipReason)] = [
            ("", .invalidFilter), ("^", .invalidFilter), ("$", .invalidFilter), ("a|\u{E9}", .nonASCII),
            ("a^", .regexAnchor), ("a$b", .regexAnchor), ("(a|b)+", .regexAlternation), ("a{129}", .regexRepetition),
            ("(?=a)", .regexLookaround), ("(?<n>a)", .regexLookaround), (#"(a)\1"#, .regexBackreference),
            (#"\s"#, .regexCharacterClass), ("[z-a]", .regexCharacterClass), (#"\b"#, .regexWordBoundary),
            ("(?i)", .regexUnsupported), ("(a", .regexUnsupported), ("a)", .regexUnsupported),
            ("a\u{1}", .regexUnsupported), (#"\x41"#, .regexUnsupported), ("()", .regexUnsupported),
            ("a*?", .regexUnsupported), ("*", .regexUnsupported), ("a\\", .regexUnsupported),
        ]
        for (source, reason) in cases {
            #expect(rewrite(source) == .failure(SkipReasonError(reason: reason)), "\(source)")
        }
    }

    /// Seeded random JavaScript regexes: whatever is rewritten, the validator accepts, and WebKit reads it as
    /// the same pattern the JavaScript source means (spelling aside).
    @Test func whatIsPrintedWebKitReadsAsTheJavaScriptMeant() throws {
        let alphabet = Array(#"^$|{}()[]*+?\/.-:=!<abdDwWsS019_ AZz"#.utf8) + [0x01]
        var generator = SeededGenerator(seed: 0x2E6E)
        var printed = 0
        for _ in 0..<20_000 {
            let source = (0..<Int.random(in: 1...12, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator)!
            }
            guard case .success(let outputs) = RegexFilterRewriter.rewrite(source[...]) else { continue }
            printed += 1
            let text = String(decoding: source, as: UTF8.self)
            for output in outputs {
                #expect(output.withUnsafeBufferPointer { URLFilterRegexChecker.problem(in: $0) } == nil, "\(text)")
            }
            let meant = try RegexExpansion.patterns(URLFilterParser.parse(source, mode: .javaScript).terms).get()
            let read = try outputs.map { try URLFilterParser.parse($0, mode: .webKit) }
            #expect(Set(read.map(MatcherView.init)) == Set(meant.map(MatcherView.init)), "\(text)")
        }
        #expect(printed > 0)
    }
}

/// A pattern as a matcher sees it: each literal's byte and each class's byte ranges, not how they were written.
private struct MatcherView: Hashable {
    var text = ""

    init(_ pattern: URLFilterPattern) {
        text = pattern.anchoredStart ? "^" : ""
        append(pattern.terms)
        if pattern.anchoredEnd { text += "$" }
    }

    private mutating func append(_ terms: [URLFilterTerm]) {
        for term in terms {
            switch term.atom {
            case .literal(let byte, _): text += "<\(byte)>"
            case .any: text += "."
            case .characterClass(let characterClass):
                text +=
                    "[\(characterClass.negated ? "^" : "")\(characterClass.ranges.map { "\($0)" }.joined(separator: ","))]"
            case .group(let inner):
                text += "("
                append(inner)
                text += ")"
            case .backreference(let number): text += "\\\(number)"
            case .alternation, .startOfLine, .endOfLine: text += "<never printed>"
            }
            text += "\(term.quantifier)"
        }
    }
}
