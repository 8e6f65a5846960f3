import Testing
import URLFilterGrammar

@testable import Converter

/// The validator's fast paths (in-place strings, word-at-a-time scans, the host-anchor shortcut, inline
/// escapes, the reused problem buffer) must give exactly the verdicts of the plain byte-by-byte reading.
@Suite struct ValidatorFastPathTests {
    private let validator = WebKitListValidator()

    private func messages(_ json: String) -> [String] {
        validator.problems(in: Array(json.utf8)).map(\.description)
    }

    private func list(trigger: String, action: String = #"{"type":"block"}"#) -> String {
        #"[{"trigger":\#(trigger),"action":\#(action)}]"#
    }

    @Test func escapedAndPlainStringsGiveTheSameVerdicts() {
        let alternation = ["rule 0: url-filter: alternation '|' at 1 (WebKit: Disjunctions are not supported yet)"]
        #expect(messages(list(trigger: #"{"url-filter":"a|b"}"#)) == alternation)
        #expect(messages(list(trigger: #"{"url-filter":"a\u007cb"}"#)) == alternation)
        #expect(
            messages(#"[{"trigg\u0065r":{"url-f\u0069lter":"a|b"},"\u0061ction":{"type":"bl\u006fck"}}]"#)
                == alternation)
        // `\\.` decodes to `\.`, an escaped dot: fine; `\\d` to `\d`: a character class WebKit refuses.
        #expect(messages(list(trigger: #"{"url-filter":"ads\\.example\\.com\/x"}"#)).isEmpty)
        #expect(
            messages(list(trigger: #"{"url-filter":"ads\\.example\\d"}"#)) == [
                "rule 0: url-filter: unsupported escape '\\d' at 12"
            ])
    }

    @Test func stringEndsAreFoundAtEveryOffsetOfAWord() {
        for length in 0...20 {
            let plain = String(repeating: "a", count: length)
            #expect(
                messages(list(trigger: #"{"url-filter":"\#(plain)|"}"#))
                    == [
                        "rule 0: url-filter: alternation '|' at \(length) (WebKit: Disjunctions are not supported yet)"
                    ], "\(length)")
            let escaped = String(repeating: #"\\."#, count: length)
            #expect(
                messages(list(trigger: #"{"url-filter":"x\#(escaped)|"}"#))
                    == [
                        "rule 0: url-filter: alternation '|' at \(1 + 2 * length) (WebKit: Disjunctions are not supported yet)"
                    ], "\(length)")
        }
    }

    @Test func controlBytesAndUnterminatedStringsAreFoundAtTheirOffset() {
        let head = #"[{"trigger":{"url-filter":""#
        for offset in 0...20 {
            for tail in ["", #"\\."#] {
                var json = Array(head.utf8) + Array(tail.utf8) + Array(repeating: UInt8(ascii: "a"), count: offset)
                let at = json.count
                json += [0x01] + Array(#"a"},"action":{"type":"block"}}]"#.utf8)
                #expect(
                    validator.problems(in: json).map(\.message)
                        == [
                            "invalid JSON at byte \(at): control character in string (WebKit: Failed to parse the JSON String)"
                        ])
                let open = Array(head.utf8) + Array(tail.utf8) + Array(repeating: UInt8(ascii: "a"), count: offset)
                #expect(
                    validator.problems(in: open).map(\.message)
                        == [
                            "invalid JSON at byte \(open.count): unterminated string (WebKit: Failed to parse the JSON String)"
                        ])
            }
        }
    }

    @Test func aListThatIsNotUTF8IsRejected() {
        #expect(
            validator.problems(
                in: Array(#"[{"trigger":{"url-filter":"a"},"action":{"type":"block"}}]"#.utf8) + [0x20, 0xC3]
            ).map(\.message)
                == ["the list is not valid UTF-8 (WebKit: Failed to parse the JSON String)"])
    }

    @Test func nonASCIIAndUppercaseDomainsAreRejectedEscapedOrNot() {
        let bucher = [
            #"rule 0: if-domain "bücher.example" is not lowercase ASCII (WebKit: Domains must be lower case ASCII)"#
        ]
        #expect(messages(list(trigger: #"{"url-filter":"a","if-domain":["bücher.example"]}"#)) == bucher)
        #expect(messages(list(trigger: #"{"url-filter":"a","if-domain":["b\u00fccher.example"]}"#)) == bucher)
        #expect(
            messages(list(trigger: #"{"url-filter":"a","unless-domain":["a.example","\u0041.example"]}"#))
                == [
                    #"rule 0: unless-domain "A.example" is not lowercase ASCII (WebKit: Domains must be lower case ASCII)"#
                ])
        #expect(
            messages(list(trigger: #"{"url-filter":"a","unless-domain":["*a.example","xn--bcher-kva.example"]}"#))
                .isEmpty)
    }

    @Test func hostAnchoredFiltersAreCheckedInFull() {
        let anchor = #"^[^:]+://+([^:/]+\\.)?"#
        #expect(messages(list(trigger: #"{"url-filter":"\#(anchor)ads\\.example[/:]"}"#)).isEmpty)
        #expect(messages(list(trigger: #"{"url-filter":"\#(anchor)"}"#)).isEmpty)
        #expect(
            messages(list(trigger: #"{"url-filter":"\#(anchor)ads|track"}"#))
                == ["rule 0: url-filter: alternation '|' at 24 (WebKit: Disjunctions are not supported yet)"])
        #expect(
            messages(list(trigger: #"{"url-filter":"\#(anchor)*"}"#)) == [
                "rule 0: url-filter: quantifier after quantifier at 21"
            ])
        #expect(
            messages(list(trigger: #"{"url-filter":"\#(anchor)a)"}"#)) == ["rule 0: url-filter: unbalanced ')' at 22"])
        #expect(
            messages(list(trigger: #"{"url-filter":"\#(anchor)(a"}"#)) == [
                "rule 0: url-filter: unbalanced '(' (WebKit: Internal error in YARR)"
            ])
        #expect(
            messages(list(trigger: #"{"url-filter":"\#(anchor)pub\u00e9"}"#))
                == ["rule 0: url-filter: non-ASCII byte at 24 (WebKit: Only ASCII characters are supported in pattern)"]
        )
        // Fast path or not, the same verdict.
        let anchorBytes = Array(#"^[^:]+://+([^:/]+\.)?"#.utf8)
        for suffix in [
            "", "a", "*", "+", "?", ")", "(", "$", "a$", "$a", "^", "|", "{2}", #"\d"#, "[a-z]", "[z-a]", "(?:a)", "()",
            "\u{7F}", "é",
        ] {
            let pattern = anchorBytes + Array(suffix.utf8)
            pattern.withUnsafeBufferPointer { bytes in
                #expect(
                    URLFilterRegexChecker.problem(in: bytes)
                        == URLFilterRegexChecker.problem(in: bytes, skippingHostAnchor: false), "\(suffix)")
            }
        }
    }

    /// A filter ending in the host end class `[/:]` after plain bytes passes without the parser: its
    /// verdict must be the parser's, whatever comes before the class (an escape, an operator, nothing).
    @Test func theHostEndClassFastPathGivesTheParsersVerdicts() {
        let anchor = #"^[^:]+://+([^:/]+\.)?"#
        for head in [
            "", "a", #"ads\.example\.com"#, #"a\"#, #"a\\"#, "a*", "*", "(a", "a)", "a|b", "a$", "$", "^a", #"\d"#,
            "a{2}", "[a", "]", "é", "\u{7F}", "[/:]", "a[/:]",
        ] {
            for prefix in ["", anchor] {
                let pattern = Array((prefix + head + "[/:]").utf8)
                let parserAccepts = pattern.withUnsafeBufferPointer {
                    (try? URLFilterParser.check($0, mode: .strict, quantifiedPrefix: 0)) != nil
                }
                let problem = pattern.withUnsafeBufferPointer { URLFilterRegexChecker.problem(in: $0) }
                #expect((problem == nil) == parserAccepts, "\(prefix + head)[/:]: \(problem ?? "accepted")")
                if head == #"ads\.example\.com"# { #expect(problem == nil) }
            }
        }
    }

    /// A selector's verdict is reused only for the same bytes: a run of one selector gets its verdict
    /// on every rule, and a selector of the same length that differs by one byte gets its own.
    @Test func aRepeatedSelectorKeepsItsVerdictAndANeighbourGetsItsOwn() {
        func hide(_ selector: String) -> String {
            #"{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":"\#(selector)"}}"#
        }
        let invalid = #"may be rejected by WebKit's CSS parser, which drops the rule silently"#
        let rules = [".ad", ".ad", "[ad", "[ad", ".ad", ".ad:has-text(x)", ".ad:has-text(x)", ".ad"].map(hide)
        let problems = validator.problems(in: Array(("[" + rules.joined(separator: ",") + "]").utf8))
        #expect(problems.map(\.ruleIndex) == [2, 3, 5, 6])
        #expect(problems.prefix(2).allSatisfy { $0.message.hasSuffix(invalid) })
        #expect(problems.suffix(2).allSatisfy { $0.message.contains("procedural") })
    }

    /// The pre-check passes over the anchor and then takes only whole terms, so what follows the anchor must
    /// be free to start a term: the anchor is a complete pattern that ends in a quantified group.
    @Test func theHostAnchorIsACompletePatternEndingInAQuantifiedGroup() throws {
        let anchor = Array(#"^[^:]+://+([^:/]+\.)?"#.utf8)
        #expect(URLFilterRegexChecker.hostAnchor.utf8CodeUnitCount == anchor.count)
        anchor.withUnsafeBufferPointer { #expect(URLFilterRegexChecker.startsWithHostAnchor($0)) }
        let pattern = try URLFilterParser.parse(anchor, mode: .strict)
        #expect(pattern.anchoredStart && !pattern.anchoredEnd)
        let last = try #require(pattern.terms.last)
        guard case .group = last.atom else {
            Issue.record("\(last)")
            return
        }
        #expect(last.quantifier == .optional)
        for near in [
            #"^[^:]+://+([^:/]+\.)"#, #"^[^:]+://+([^:/]+\.)!"#, #"![^:]+://+([^:/]+\.)?"#, #"^[^:]+://+([^:/]+\,)?"#,
        ] {
            Array(near.utf8).withUnsafeBufferPointer {
                #expect(!URLFilterRegexChecker.startsWithHostAnchor($0), "\(near)")
            }
        }
    }

    @Test func plainAtomMasksMatchTheRegexOperators() {
        for byte in 0...255 {
            let expected = byte >= 0x20 && byte <= 0x7E && !Array(#"^$|{()*+?\["#.utf8).contains(UInt8(byte))
            #expect(URLFilterGrammar.isPlainAtom(UInt8(byte)) == expected, "\(byte)")
        }
    }

    @Test func everyEscapedByteGetsTheVerdictOfTheEscapeRule() {
        for byte in 0...255 {
            let escaped = UInt8(byte)
            let allowed = escaped > 0x20 && escaped < 0x7F && !NetworkFilterParser.isAlphanumeric(escaped)
            #expect(URLFilterGrammar.isEscapablePunctuation(escaped) == allowed, "\(byte)")
            // After a plain atom, inside a group, and right after the host anchor.
            for pattern in [
                [UInt8(ascii: "a"), 0x5C, escaped],
                [UInt8(ascii: "("), 0x5C, escaped, UInt8(ascii: ")"), UInt8(ascii: "+")],
                Array(#"^[^:]+://+([^:/]+\.)?"#.utf8) + [0x5C, escaped, UInt8(ascii: "*")],
            ] {
                let problem = pattern.withUnsafeBufferPointer { URLFilterRegexChecker.problem(in: $0) }
                if allowed {
                    #expect(problem == nil, "\(pattern)")
                } else {
                    let at = pattern.count - (pattern.last == escaped ? 2 : pattern.first == UInt8(ascii: "(") ? 4 : 3)
                    #expect(
                        problem == "unsupported escape '\\\(Character(Unicode.Scalar(escaped)))' at \(at)", "\(pattern)"
                    )
                }
            }
        }
        #expect(
            Array(#"a\"#.utf8).withUnsafeBufferPointer { URLFilterRegexChecker.problem(in: $0) } == "trailing backslash"
        )
    }

    @Test func problemsKeepTheirOrderWhateverTheKeyOrder() {
        #expect(
            messages(#"[{"action":{"type":"bogus"},"trigger":{"url-filter":"a|b"}}]"#) == [
                "rule 0: url-filter: alternation '|' at 1 (WebKit: Disjunctions are not supported yet)",
                "rule 0: unknown action type (WebKit: Invalid action type)",
            ])
        #expect(
            messages(
                list(trigger: #"{"unless-domain":["A"],"if-domain":["a"],"url-filter":"(","resource-type":["x"]}"#))
                == [
                    "rule 0: url-filter: unbalanced '(' (WebKit: Internal error in YARR)",
                    "rule 0: more than one condition (unless-domain, if-domain) in one trigger",
                    #"rule 0: unless-domain "A" is not lowercase ASCII (WebKit: Domains must be lower case ASCII)"#,
                    "rule 0: resource-type has an invalid value (WebKit: Invalid string in the trigger flags array)",
                ])
        // A repeated key replaces the earlier one, problems and all; the buffer is clean for the next rule.
        #expect(
            messages(
                #"[{"trigger":{"url-filter":"a|b"},"trigger":{"url-filter":"a"},"action":{"type":"block"}},"#
                    + #"{"trigger":{"url-filter":"b"},"action":{"type":"bogus"},"action":{"type":"block"}}]"#
            ).isEmpty)
        #expect(
            messages(#"[{"trigger":{"url-filter":"a"},"trigger":1,"action":{"type":"block"},"action":[]}]"#) == [
                "rule 0: missing or invalid trigger object (WebKit: Invalid trigger object)",
                "rule 0: missing or invalid action object (WebKit: Invalid action object)",
            ])
        #expect(
            messages(
                #"[{"trigger":{"url-filter":"a|b"},"action":{"type":"block"}},{"trigger":{"url-filter":"a"},"action":{"type":"block"}},7]"#
            ) == [
                "rule 0: url-filter: alternation '|' at 1 (WebKit: Disjunctions are not supported yet)",
                "rule 2: not an object (WebKit: Invalid rule)",
            ])
    }

    @Test func selectorsAreCheckedInPlaceEscapedOrNot() {
        let css = #"{"type":"css-display-none","selector":"#
        #expect(
            messages(
                list(trigger: #"{"url-filter":".*"}"#, action: css + #"".ad-banner, div[class^=\"Ad\"], a:not(.b)"}"#)
            ).isEmpty)
        #expect(
            messages(list(trigger: #"{"url-filter":".*"}"#, action: css + #""div[class^=\"Ad\""}"#))
                == [
                    #"rule 0: selector "div[class^="Ad"" may be rejected by WebKit's CSS parser, which drops the rule silently"#
                ])
        #expect(
            messages(list(trigger: #"{"url-filter":".*"}"#, action: css + #"".a,,b"}"#))
                == [#"rule 0: selector ".a,,b" may be rejected by WebKit's CSS parser, which drops the rule silently"#])
        #expect(
            messages(list(trigger: #"{"url-filter":".*"}"#, action: css + #""div:has-text(Ad)"}"#))
                == ["rule 0: selector uses procedural (non-CSS) operators; WebKit would drop the rule silently"])
        for (selector, verdict) in [
            ("div", CSSSelectorChecker.Verdict.valid), ("#ad-1 > a_b", .valid), (".1a", .invalid), ("a b,", .invalid),
            ("a:bogus", .invalid), ("a:-abp-has(b)", .extendedCSS), ("a[href=\"x y\"]", .valid),
        ] {
            let bytes = Array(selector.utf8)
            #expect(CSSSelectorChecker.check(bytes) == verdict, "\(selector)")
            #expect(bytes.withUnsafeBufferPointer { CSSSelectorChecker.check($0) } == verdict, "\(selector)")
        }
    }
}
