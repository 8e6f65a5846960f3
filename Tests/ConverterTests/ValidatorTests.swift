import Converter
import JSONBytes
import Testing

@testable import Converter

/// The validator must flag exactly what WebKit rejects (webkit-format.md) and accept what it compiles.
@Suite struct ValidatorTests {
    private let validator = WebKitListValidator()

    private func rule(_ trigger: String, action: String = #"{"type":"block"}"#) -> [UInt8] {
        Array(#"[{"trigger":\#(trigger),"action":\#(action)}]"#.utf8)
    }

    private func urlFilterProblems(_ filter: String) -> [WebKitListValidator.Problem] {
        var json = Array(#"[{"trigger":{"url-filter":"#.utf8)
        JSONWriter.appendString(filter, to: &json)
        json.append(contentsOf: #"},"action":{"type":"block"}}]"#.utf8)
        return validator.problems(in: json)
    }

    @Test func acceptsWhatWebKitCompiles() {
        for filter in [
            #"^[^:]+://+([^:/]+\.)?ads\.example[/:]"#, "[0-9]*", "[^:]+", "(ab)?c", "(ab)+", "(?:ab)c", ".*", "a+b?",
            "/ads[^a-zA-Z0-9_.%-]", "/ads$", "^https://", #"\/\.\?"#, "[|]x", "[a-]", "}",
        ] {
            #expect(urlFilterProblems(filter).isEmpty, "\(filter)")
        }
    }

    @Test func rejectsRegexOutsideTheSubset() {
        for filter in [
            "a|b", "(ads|track)", "a{2,3}", "a{2}", #"(a)\1"#, "pubé", #"\d"#, #"\w"#, #"\s"#, #"\b"#, "(?=x)", "(?!x)",
            "a^b", "a$b", "(ads", "ads)", "*a", "a**", "[z-a]", "[]", "[abc", "()", #"a\"#, "",
        ] {
            #expect(!urlFilterProblems(filter).isEmpty, "\(filter)")
        }
    }

    @Test func listLevelProblems() {
        #expect(validator.problems(in: Array("[]".utf8)).map(\.message) == ["empty list (WebKit: Empty extension)"])
        #expect(validator.problems(in: Array(#"{"a":1}"#.utf8)).map(\.message) == ["the top level is not an array"])
        #expect(validator.problems(in: Array("[{".utf8)).count == 1)
        #expect(validator.problems(in: [0x5B, 0xFF, 0x5D]).count == 1)
        #expect(validator.problems(in: Array("[1]".utf8)).map(\.message) == ["not an object (WebKit: Invalid rule)"])
        #expect(
            validator.problems(in: Array(#"[{"action":{"type":"block"}}]"#.utf8)).first?.message.contains("trigger")
                == true)
        #expect(
            validator.problems(in: Array(#"[{"trigger":{"url-filter":"a"}}]"#.utf8)).first?.message.contains("action")
                == true)
        #expect(
            validator.problems(in: Array(#"[{"trigger":{"url-filter":"a"},"action":{"type":"block"}}] x"#.utf8)).count
                == 1)
    }

    @Test func ruleCountLimitIsExactly150000() {
        let one = #"{"trigger":{"url-filter":"a"},"action":{"type":"block"}}"#
        func list(_ count: Int) -> [UInt8] {
            Array(("[" + Array(repeating: one, count: count).joined(separator: ",") + "]").utf8)
        }
        #expect(validator.problems(in: list(150_000)).isEmpty)
        #expect(validator.problems(in: list(150_001)).map(\.message) == ["150001 rules, more than WebKit's 150000"])
    }

    @Test func urlFilterMustBeANonEmptyString() {
        #expect(validator.problems(in: rule("{}")).count == 1)
        #expect(validator.problems(in: rule(#"{"url-filter":1}"#)).count == 1)
        #expect(validator.problems(in: rule(#"{"url-filter":""}"#)).count == 1)
    }

    @Test func domainConditions() {
        #expect(
            validator.problems(
                in: rule(#"{"url-filter":"a","if-domain":["*news.example","xn--bcher-kva.example","a.example:8080"]}"#)
            ).isEmpty)
        #expect(validator.problems(in: rule(#"{"url-filter":"a","if-domain":["News.Example"]}"#)).count == 1)
        #expect(validator.problems(in: rule(#"{"url-filter":"a","unless-domain":["bücher.example"]}"#)).count == 1)
        #expect(validator.problems(in: rule(#"{"url-filter":"a","if-domain":[]}"#)).count == 1)
        #expect(validator.problems(in: rule(#"{"url-filter":"a","if-domain":[""]}"#)).count == 1)
        #expect(validator.problems(in: rule(#"{"url-filter":"a","if-domain":"a.example"}"#)).count == 1)
        #expect(
            validator.problems(in: rule(#"{"url-filter":"a","if-domain":["a.example"],"unless-domain":["b.example"]}"#))
                .count == 1)
        #expect(
            validator.problems(in: rule(#"{"url-filter":"a","if-domain":["a.example"],"if-top-url":["b"]}"#)).count == 1
        )
        #expect(validator.problems(in: rule(#"{"url-filter":"a","if-top-url":["a|b"]}"#)).count == 1)
        #expect(validator.problems(in: rule(#"{"url-filter":"a","unless-top-url":["^https://a"]}"#)).isEmpty)
    }

    @Test func triggerFlagArrays() {
        let types =
            #"["document","image","style-sheet","script","font","raw","svg-document","media","popup","ping","fetch","websocket","other"]"#
        #expect(
            validator.problems(
                in: rule(
                    #"{"url-filter":"a","resource-type":\#(types),"load-type":["first-party","third-party"],"load-context":["top-frame","child-frame"]}"#
                )
            ).isEmpty)
        #expect(
            validator.problems(in: rule(#"{"url-filter":"a","resource-type":[],"load-type":[],"load-context":[]}"#))
                .isEmpty)
        #expect(validator.problems(in: rule(#"{"url-filter":"a","resource-type":["xmlhttprequest"]}"#)).count == 1)
        #expect(validator.problems(in: rule(#"{"url-filter":"a","resource-type":["stylesheet"]}"#)).count == 1)
        #expect(validator.problems(in: rule(#"{"url-filter":"a","load-type":["bogus"]}"#)).count == 1)
        #expect(validator.problems(in: rule(#"{"url-filter":"a","load-context":["bogus"]}"#)).count == 1)
    }

    @Test func actions() {
        for action in [
            #"{"type":"block-cookies"}"#, #"{"type":"ignore-previous-rules"}"#, #"{"type":"make-https"}"#,
            #"{"type":"css-display-none","selector":".ad, div:has(> .ad)"}"#, #"{"type":"notify","notification":"hi"}"#,
        ] {
            #expect(validator.problems(in: rule(#"{"url-filter":".*"}"#, action: action)).isEmpty, "\(action)")
        }
        for action in [
            #"{"type":"bogus"}"#, #"{}"#, #"{"type":"css-display-none"}"#,
            #"{"type":"css-display-none","selector":"div["}"#,
            #"{"type":"css-display-none","selector":"div:-abp-contains(Ad)"}"#,
            #"{"type":"css-display-none","selector":""}"#,
            #"{"type":"notify"}"#, #"{"type":"redirect"}"#, #"{"type":"modify-headers"}"#,
        ] {
            #expect(validator.problems(in: rule(#"{"url-filter":".*"}"#, action: action)).count == 1, "\(action)")
        }
    }

    @Test func problemsNameTheRule() {
        let json = Array(
            #"[{"trigger":{"url-filter":"a"},"action":{"type":"block"}},{"trigger":{"url-filter":"a|b"},"action":{"type":"block"}}]"#
                .utf8)
        let problems = validator.problems(in: json)
        #expect(problems.map(\.ruleIndex) == [1])
        #expect(problems.first?.description.hasPrefix("rule 1: url-filter: alternation") == true)
    }

    @Test func jsonStringEscapesAreDecodedBeforeChecking() {
        #expect(validator.problems(in: rule(#"{"url-filter":"\u0061\\.b\/c"}"#)).isEmpty)
        #expect(validator.problems(in: rule(#"{"url-filter":"a\u007cb"}"#)).count == 1)
        #expect(validator.problems(in: rule(#"{"url-filter":"\ud800"}"#)).count == 1)
    }

    @Test func deepNestingIsAProblemNotACrash() {
        let deep = Array((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)
        #expect(validator.problems(in: deep).count == 1)
    }
}
