import Testing
import URLFilterGrammar

@testable import Converter

/// ABP `/regex/` bodies printed in WebKit's syntax as written, and each refusal under its report name.
@Suite struct RegexFilterRewriterTests {
    private func rewrite(_ source: String) -> Result<String, SkipReasonError> {
        RegexFilterRewriter.rewrite(Array(source.utf8)[...]).map { String(decoding: $0, as: UTF8.self) }
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
            #expect(rewrite(source) == .success(expected), "\(source)")
        }
    }

    @Test func everyRefusalHasItsSkipReason() {
        let cases: [(String, SkipReason)] = [
            ("", .invalidFilter), ("^", .invalidFilter), ("$", .invalidFilter), ("a|\u{E9}", .nonASCII),
            ("a^", .regexAnchor), ("a$b", .regexAnchor), ("a|b", .regexAlternation), ("a{2}", .regexRepetition),
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
}
