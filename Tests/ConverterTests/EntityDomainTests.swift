import Testing

@testable import Converter

/// Rules that name entity domains (`name.*`): their plain sites convert exactly, and what is left out
/// can only make WebKit hide or block less than ABP, never more.
@Suite struct EntityDomainTests {
    static let host = #"^[^:]+://+([^:/]+\\.)?"#

    /// Every rule of the published lists, in list order, as text.
    private func published(_ text: String) throws -> [String] {
        let output = try ListConverter().convert([FilterListSource(id: "test", bytes: Array(text.utf8))])
        return output.lists.flatMap { list in
            rulesOf(list.json)
        }
    }

    /// Splits a list's JSON array into its rule objects (the converter writes them without spaces).
    private func rulesOf(_ json: [UInt8]) -> [String] {
        var rules: [String] = []
        var depth = 0
        var start = 0
        var inString = false
        var escaped = false
        for (index, byte) in json.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"):
                if depth == 0 { start = index }
                depth += 1
            case UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 { rules.append(String(decoding: json[start...index], as: UTF8.self)) }
            default: break
            }
        }
        return rules
    }

    private func hide(_ host: String, _ selector: String) -> String {
        #"{"trigger":{"url-filter":"\#(Self.host)\#(host)[/:]","resource-type":["document"]},"action":{"type":"css-display-none","selector":"\#(selector)"}}"#
    }

    private func parts(_ fixture: RuleConversionFixture) -> [String: ConversionReport.SkipTally] {
        fixture.report.skippedParts ?? [:]
    }

    @Test func mixedHidingRuleKeepsItsPlainSites() throws {
        let line = "cnn.com,tripadvisor.*,cbc.ca##.ad"
        #expect(try published(line) == [hide(#"cbc\\.ca"#, ".ad"), hide(#"cnn\\.com"#, ".ad")])
        let fixture = RuleConversionFixture(line)
        #expect(fixture.report.converted == 1 && fixture.skips.isEmpty)
        #expect(parts(fixture) == ["entity-domain-part": ConversionReport.SkipTally(count: 1, examples: [line])])
    }

    @Test func plainExclusionsStillApplyAfterTheSplit() throws {
        #expect(try published("a.example,google.*,~b.example##.ad") == [hide(#"a\\.example"#, ".ad")])
        #expect(
            try published("##.g\na.example,google.*#@#.x\n~b.example,c.example,bing.*##.y") == [
                #"{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":".g"}}"#,
                hide(#"c\\.example"#, ".y"),
            ])
    }

    @Test func onlyEntitySitesOrAnEntityExclusionSkipTheLine() {
        let cases = [
            "amazon.*###nav-swmslot": "entity-domain",
            // Not "everywhere but x.example": the rule named only entity sites.
            "google.*,~x.example##.ad": "entity-domain",
            "x.example,~google.*##.ad": "entity-domain-excluded",
            "~google.*##.ad": "entity-domain-excluded",
        ]
        for (line, reason) in cases {
            let fixture = RuleConversionFixture(line)
            #expect(fixture.rules.cosmetic.isEmpty, "\(line)")
            #expect(fixture.skips == [reason: 1], "\(line)")
            #expect(fixture.report.skippedParts == nil, "\(line)")
        }
    }

    /// An exception must cancel at least what ABP cancels: its `name.*` sites cannot be carved out of a
    /// hiding rule, so the selector's hiding rules go; its plain part alone still folds exactly.
    @Test func entityExceptionCancelsTheSelectorsHidingRules() throws {
        let text = "##.gen\nsite.example##.gen\na.example,google.*#@#.gen\n##.kept"
        #expect(
            try published(text) == [
                #"{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":".kept"}}"#
            ])
        let fixture = RuleConversionFixture(text)
        #expect(fixture.skips == ["cancelled-by-entity-exception": 2])
        #expect(fixture.report.converted == 2)
        #expect(
            try published("##.gen\na.example#@#.gen") == [
                #"{"trigger":{"url-filter":".*","unless-domain":["*a.example"]},"action":{"type":"css-display-none","selector":".gen"}}"#
            ])
    }

    /// `~` sites of an exception are dropped, so it cancels on them too: hiding less than ABP, never more.
    @Test func exceptionExclusionsWidenTheException() throws {
        let text = "##.w\nsub.a.example,b.example##.s\na.example,~sub.a.example#@#.w\na.example,~sub.a.example#@#.s"
        #expect(
            try published(text) == [
                #"{"trigger":{"url-filter":".*","unless-domain":["*a.example"]},"action":{"type":"css-display-none","selector":".w"}}"#,
                hide(#"b\\.example"#, ".s"),
            ])
        let fixture = RuleConversionFixture(text)
        #expect(fixture.skips.isEmpty)
        #expect(
            parts(fixture) == [
                "exception-exclusion-widened": ConversionReport.SkipTally(
                    count: 2, examples: ["a.example,~sub.a.example#@#.w", "a.example,~sub.a.example#@#.s"])
            ])
        #expect(RuleConversionFixture("##.w\n~a.example,~google.*#@#.w").skips == ["cancelled-by-exception": 1])
    }

    @Test func networkDomainListsSplitTheSameWay() {
        let block = RuleConversionFixture("||ads.example^$script,domain=a.example|wayfair.*")
        #expect(
            block.networkJSON == [
                #"{"trigger":{"url-filter":"\#(Self.host)ads\\.example[/:]","resource-type":["script"],"if-domain":["*a.example"]},"action":{"type":"block"}}"#
            ])
        #expect(
            parts(block) == [
                "entity-domain-part": ConversionReport.SkipTally(
                    count: 1, examples: ["||ads.example^$script,domain=a.example|wayfair.*"])
            ])
        let exception = RuleConversionFixture("@@||ads.example^$script,domain=b.example|google.*")
        #expect(
            exception.networkJSON == [
                #"{"trigger":{"url-filter":"\#(Self.host)ads\\.example[/:]","resource-type":["script"],"if-domain":["*b.example"]},"action":{"type":"ignore-previous-rules"}}"#
            ])
        #expect(parts(exception).keys.sorted() == ["entity-domain-part"])
        let carved = RuleConversionFixture("/d$script,domain=a.example|~sub.a.example|google.*")
        #expect(
            carved.networkJSON == [
                #"{"trigger":{"url-filter":"/d","resource-type":["script"],"if-domain":["*a.example"]},"action":{"type":"block"}}"#
            ])
        #expect(
            carved.rules.network[0].carveOut.map { String(decoding: $0, as: UTF8.self) }
                == #"{"trigger":{"url-filter":"/d","resource-type":["script"],"if-domain":["*sub.a.example"]},"action":{"type":"ignore-previous-rules"}}"#
        )
        let site = RuleConversionFixture("@@$elemhide,domain=c.example|yahoo.*")
        #expect(
            site.rules.siteExceptions.map { String(decoding: $0.json, as: UTF8.self) } == [
                #"{"trigger":{"url-filter":".*","if-domain":["*c.example"]},"action":{"type":"ignore-previous-rules"}}"#
            ])
        #expect(parts(site).keys.sorted() == ["entity-domain-part"])
        for fixture in [block, exception, carved, site] { #expect(fixture.validatorProblems.isEmpty) }
    }

    @Test func networkLinesThatOnlyNameEntitiesOrExcludeOneAreSkipped() {
        let cases = [
            "/k$domain=google.*": "entity-domain", "/k$domain=google.*|~x.example": "entity-domain",
            "/k$domain=a.example|~a.*": "entity-domain-excluded", "/k$domain=~google.*": "entity-domain-excluded",
            "@@/k$domain=b.example|~google.*": "entity-domain-excluded",
            "@@$generichide,domain=yahoo.*": "entity-domain",
        ]
        for (line, reason) in cases {
            let fixture = RuleConversionFixture(line)
            #expect(fixture.rules.network.isEmpty && fixture.rules.siteExceptions.isEmpty, "\(line)")
            #expect(fixture.skips == [reason: 1], "\(line)")
        }
    }
}
