import ContentBlockerEngine
import Testing
import URLFilterGrammar

@testable import Converter

/// The converter's validator and the decision engine read url-filters through one grammar: what one
/// refuses the other refuses, for WebKit's reason in WebKit's words, and what the converter writes the
/// engine compiles.
@Suite struct URLFilterGrammarAgreementTests {
    static func checker(_ pattern: String) -> String? { URLFilterRegexChecker.problem(in: Array(pattern.utf8)) }

    static func engine(_ pattern: String) -> String? {
        do {
            _ = try URLFilterRegex(pattern)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test(arguments: [
        ("a|b", URLFilterGrammar.Refusal.disjunction),
        ("ads{2}", .arbitraryRepetition),
        ("a(?=b)", .group),
        ("caf\u{E9}", .nonASCII),
        ("", .emptyFilter),
    ])
    func bothRefuseForWebKitsReason(pattern: String, refusal: URLFilterGrammar.Refusal) throws {
        let checked = try #require(Self.checker(pattern), "the validator accepted \(pattern)")
        #expect(checked.hasSuffix("(WebKit: \(refusal.message))"), "\(checked)")
        #expect(Self.engine(pattern) == refusal.message)
    }

    /// WebKit's own texts (URLFilterParser.cpp's statusString), so a reason a user sees can be searched for.
    @Test func refusalsSayWhatWebKitSays() {
        #expect(URLFilterGrammar.Refusal.disjunction.message == "Disjunctions are not supported yet")
        #expect(URLFilterGrammar.Refusal.builtinCharacterClass.message == "Character class is not supported")
        #expect(URLFilterGrammar.Refusal.arbitraryRepetition.message == "Arbitrary atom repetitions are not supported")
    }

    @Test(arguments: [
        #"\d"#, #"a\W"#, #"[\s]"#, #"\bads"#, "a^", "$a", "a**", "a+?", "*a", "(a", "a)", "[b-a]", "[a", #"a\"#,
    ])
    func bothRefuse(pattern: String) {
        #expect(Self.checker(pattern) != nil, "validator accepted \(pattern)")
        #expect(Self.engine(pattern) != nil, "engine accepted \(pattern)")
    }

    @Test(arguments: [
        #"^[^:]+://+([^:/]+\.)?ads\.example[/:]"#, #"^https?://[^/]+/banner[0-9]*\.gif$"#, "track(?:er)?/",
        #"[^a-z\-]ad_"#,
        "^https://", "x.+y", #"\$\|"#,
    ])
    func bothAccept(pattern: String) {
        #expect(Self.checker(pattern) == nil, "\(Self.checker(pattern) ?? "")")
        #expect(Self.engine(pattern) == nil, "\(Self.engine(pattern) ?? "")")
    }
}
