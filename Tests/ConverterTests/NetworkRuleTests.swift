import Testing

@testable import Converter

/// ABP network filters → exact WebKit rule JSON (or the exact skip reason).
@Suite struct NetworkRuleTests {
    /// `||` prefix as it appears inside JSON text.
    static let host = #"^[^:]+://+([^:/]+\\.)?"#

    private func json(_ line: String) -> [String] { RuleConversionFixture(line).networkJSON }

    private func block(_ filter: String, _ extra: String = "") -> String {
        #"{"trigger":{"url-filter":"\#(filter)"\#(extra)},"action":{"type":"block"}}"#
    }

    private func skip(_ line: String) -> [String: Int] {
        let fixture = RuleConversionFixture(line)
        #expect(fixture.rules.network.isEmpty)
        return fixture.skips
    }

    // MARK: Patterns

    @Test func hostAnchorWithSeparator() {
        let fixture = RuleConversionFixture("||ads.example^")
        #expect(fixture.networkJSON == [block(Self.host + #"ads\\.example[/:]"#)])
        #expect(fixture.rules.network[0].anchorHost == "ads.example")
        #expect(fixture.rules.network[0].kind == .block)
        #expect(fixture.rules.network[0].key == "||ads.example^")
    }

    @Test func hostAnchorWithPath() {
        let fixture = RuleConversionFixture("||Ads.Example/banner/")
        #expect(fixture.networkJSON == [block(Self.host + #"Ads\\.Example/banner/"#)])
        #expect(fixture.rules.network[0].anchorHost == "ads.example")
    }

    @Test func partialHostHasNoAnchorHost() {
        let fixture = RuleConversionFixture("||adserver.")
        #expect(fixture.networkJSON == [block(Self.host + #"adserver\\."#)])
        #expect(fixture.rules.network[0].anchorHost == nil)
    }

    @Test func startAndEndAnchors() {
        #expect(json("|https://ads.") == [block(#"^https://ads\\."#)])
        #expect(json("/banner.gif|") == [block(#"/banner\\.gif$"#)])
    }

    @Test func trailingSeparatorMeansSeparatorOrEndSoItBecomesTwoRules() {
        let fixture = RuleConversionFixture("/ads^")
        #expect(fixture.networkJSON == [block("/ads[^a-zA-Z0-9_.%-]"), block("/ads$")])
        #expect(fixture.rules.network.map(\.key) == ["/ads^", "/ads^#1"])
        #expect(fixture.report.converted == 1)
    }

    @Test func trailingSeparatorWithEndAnchor() {
        #expect(json("/ads^|") == [block("/ads[^a-zA-Z0-9_.%-]$"), block("/ads$")])
    }

    @Test func innerSeparatorIsACharacterClass() {
        #expect(json("/ads^id=") == [block("/ads[^a-zA-Z0-9_.%-]id=")])
        #expect(json("||ads.example^*/pixel") == [block(Self.host + #"ads\\.example[/:].*/pixel"#)])
    }

    @Test func wildcardsAndEdgeStars() {
        #expect(json("/ad*banner") == [block("/ad.*banner")])
        #expect(json("*/ad**banner*") == [block("/ad.*banner")])
    }

    @Test func regexMetacharactersAreEscaped() {
        #expect(json("a+b?(c)[d]{e}\\f") == [block(#"a\\+b\\?\\(c\\)\\[d\\]\\{e\\}\\\\f"#)])
        #expect(json("/cost$") == [block(#"/cost\\$"#)])
    }

    @Test func quotesAreEscapedInJSON() {
        #expect(json(#"/ad"x"#) == [block(#"/ad\"x"#)])
    }

    @Test func nonASCIIHostIsPunycodedAndPathIsPercentEncoded() {
        let fixture = RuleConversionFixture("||bücher.example^\n/werbung/ä.js")
        #expect(
            fixture.networkJSON == [
                block(Self.host + #"xn--bcher-kva\\.example[/:]"#), block(#"/werbung/%C3%A4\\.js"#),
            ])
        #expect(fixture.rules.network[0].anchorHost == "xn--bcher-kva.example")
    }

    @Test func nonASCIIInAPartialHostIsSkipped() {
        #expect(skip("||bü*.example^") == ["non-ascii": 1])
    }

    @Test func emptyPatternWithConditionsMatchesAllURLs() {
        #expect(
            json("$popup,domain=site.example") == [
                block(".*", #","resource-type":["popup"],"if-domain":["*site.example"]"#)
            ])
        #expect(skip("*") == ["matches-everything": 1])
    }

    // MARK: Regex rules

    @Test func regexIsRewrittenExactly() {
        #expect(json(#"/^https?:\/\/ads\d+\.example\//"#) == [block(#"^https?://ads[0-9]+\\.example/"#)])
        #expect(json(#"/ad\w*\.js$/"#) == [block(#"ad[A-Za-z0-9_]*\\.js$"#)])
        #expect(json(#"/(?:ad|)x/"#) == [block("adx"), block("x")])
        #expect(json(#"/\/[a-f\d]{0}x/"#) == [block("/x")])
        #expect(
            json(#"/\/[a-f\d-]+\.gif/$image"#) == [
                block(#"/[a-f0-9-]+\\.gif"#, #","resource-type":["image","svg-document"]"#)
            ])
        #expect(json(#"/(?:ads)+\W/"#) == [block(#"(ads)+[^A-Za-z0-9_]"#)])
        #expect(json(#"/a]b}c/"#) == [block(#"a\\]b\\}c"#)])
    }

    @Test func regexOutsideTheSubsetIsSkippedByReason() {
        #expect(skip("/(ads|track)+/") == ["regex-alternation": 1])
        #expect(skip("/a{129}/") == ["regex-repetition": 1])
        #expect(skip("/(?=a)b/") == ["regex-lookaround": 1])
        #expect(skip("/(?<!a)b/") == ["regex-lookaround": 1])
        #expect(skip(#"/(a)\1/"#) == ["regex-backreference": 1])
        #expect(skip(#"/\bad/"#) == ["regex-word-boundary": 1])
        #expect(skip(#"/\sad/"#) == ["regex-character-class": 1])
        #expect(skip("/pubé/") == ["non-ascii": 1])
        #expect(skip("/a^b/") == ["regex-anchor": 1])
        #expect(skip("/a$b/$script") == ["regex-anchor": 1])
        #expect(skip("/a$b/") == ["unsupported-option": 1])
        #expect(skip("/(ads/") == ["regex-unsupported": 1])
        #expect(skip("/ads*?/") == ["regex-unsupported": 1])
        #expect(skip(#"/\x41/"#) == ["regex-unsupported": 1])
        #expect(skip("/[z-a]/") == ["regex-character-class": 1])
        #expect(skip("/[a--z]/") == ["regex-character-class": 1])
        #expect(json("/[+--]/") == [block("[+--]")])
    }

    // MARK: Options

    @Test func partyOptions() {
        #expect(
            json("||t.example^$third-party") == [
                block(Self.host + #"t\\.example[/:]"#, #","load-type":["third-party"]"#)
            ])
        #expect(
            json("||f.example^$~third-party") == [
                block(Self.host + #"f\\.example[/:]"#, #","load-type":["first-party"]"#)
            ])
        #expect(json("||g.example^$1p") == [block(Self.host + #"g\\.example[/:]"#, #","load-type":["first-party"]"#)])
    }

    @Test func resourceTypesMapToWebKitNames() {
        #expect(json("/a$script,image") == [block("/a", #","resource-type":["image","script","svg-document"]"#)])
        #expect(json("/b$xmlhttprequest") == [block("/b", #","resource-type":["fetch"]"#)])
        #expect(json("/c$stylesheet") == [block("/c", #","resource-type":["style-sheet"]"#)])
        #expect(json("/d$websocket,ping,other") == [block("/d", #","resource-type":["ping","websocket","other"]"#)])
        #expect(json("$ping,third-party") == [block(".*", #","resource-type":["ping"],"load-type":["third-party"]"#)])
        #expect(json("/e$media,font") == [block("/e", #","resource-type":["font","media"]"#)])
        #expect(json("/f$popup") == [block("/f", #","resource-type":["popup"]"#)])
        #expect(json("/g$xhr") == [block("/g", #","resource-type":["fetch"]"#)])
    }

    @Test func subdocumentIsADocumentLoadInAChildFrame() {
        #expect(
            json("/frame$subdocument") == [
                block("/frame", #","resource-type":["document"],"load-context":["child-frame"]"#)
            ])
        #expect(
            json("/mix$script,subdocument,third-party") == [
                block("/mix", #","resource-type":["script"],"load-type":["third-party"]"#),
                block(
                    "/mix", #","resource-type":["document"],"load-type":["third-party"],"load-context":["child-frame"]"#
                ),
            ])
    }

    @Test func navigationRulesAreMarkedForLayout() {
        let fixture = RuleConversionFixture(
            "||pop.example^$popup\n@@||pop.example/ok$popup\n||page.example^$document\n||host.example^$third-party\n/s$script\n||path.example/ad/\n/ads^\n||m.example^$~image"
        )
        #expect(
            fixture.rules.network.map(\.navigation) == [
                .mustNotBeGuarded, .unaffected, .mustNotBeGuarded, .mustNotBeGuarded,
                .unaffected, .needsGuard, .needsGuard, .needsGuard, .unaffected, .unaffected,
            ])
        let guards = fixture.rules.navigationGuards
        #expect(
            guards.map { String(decoding: $0, as: UTF8.self) } == [
                #"{"trigger":{"url-filter":".*","resource-type":["document"],"load-context":["top-frame"]},"action":{"type":"ignore-previous-rules"}}"#,
                #"{"trigger":{"url-filter":".*","resource-type":["popup"]},"action":{"type":"ignore-previous-rules"}}"#,
            ])
        var list = Array("[".utf8) + fixture.rules.network[5].json
        for guardRule in guards { list += Array(",".utf8) + guardRule }
        #expect(WebKitListValidator().problems(in: list + Array("]".utf8)).isEmpty)
    }

    @Test func documentBlocksTopFrameLoads() {
        #expect(
            json("||bad.example^$document") == [
                block(Self.host + #"bad\\.example[/:]"#, #","resource-type":["document"],"load-context":["top-frame"]"#)
            ])
    }

    @Test func negatedTypesMeanTheDefaultSetWithoutThem() {
        #expect(
            json("/neg$~image,~subdocument") == [
                block(
                    "/neg",
                    #","resource-type":["style-sheet","script","font","media","ping","fetch","websocket","other"]"#)
            ])
        #expect(
            json("/neg2$~script") == [
                block(
                    "/neg2",
                    #","resource-type":["image","style-sheet","font","svg-document","media","ping","fetch","websocket","other"]"#
                ),
                block("/neg2", #","resource-type":["document"],"load-context":["child-frame"]"#),
            ])
        #expect(json("/noobj$~object") == [block("/noobj")])
    }

    @Test func objectHasNoWebKitType() {
        #expect(skip("/flash$object") == ["object-only": 1])
        #expect(json("/plug$object,script") == [block("/plug", #","resource-type":["script"]"#)])
        #expect(skip("/none$image,~image") == ["empty-type-set": 1])
    }

    @Test func matchCase() {
        #expect(json("/BannerAd$match-case") == [block("/BannerAd", #","url-filter-is-case-sensitive":true"#)])
    }

    @Test func domainsAreLowercasedPunycodedAndStarred() {
        #expect(
            json("/a$domain=B.example|bücher.example") == [
                block("/a", #","if-domain":["*b.example","*xn--bcher-kva.example"]"#)
            ])
        #expect(
            json("/b$domain=~c.example|~a.example") == [block("/b", #","unless-domain":["*a.example","*c.example"]"#)])
    }

    @Test func excludedDomainsOutsideEveryIncludedOneChangeNothing() {
        #expect(json("/c$domain=a.example|~b.example") == [block("/c", #","if-domain":["*a.example"]"#)])
    }

    @Test func mixedDomainsBecomeABlockWithACarveOut() {
        let fixture = RuleConversionFixture("/d$script,domain=a.example|~sub.a.example")
        #expect(fixture.networkJSON == [block("/d", #","resource-type":["script"],"if-domain":["*a.example"]"#)])
        #expect(
            fixture.rules.network[0].carveOut.map { String(decoding: $0, as: UTF8.self) }
                == #"{"trigger":{"url-filter":"/d","resource-type":["script"],"if-domain":["*sub.a.example"]},"action":{"type":"ignore-previous-rules"}}"#
        )
        #expect(fixture.validatorProblems.isEmpty)
    }

    @Test func carveOutsThatWouldCancelEachOtherAreSkipped() {
        let fixture = RuleConversionFixture(
            "/e$domain=a.example|~sub.a.example\n/f$domain=sub.a.example|~deep.sub.a.example\n/g$domain=b.example|~x.b.example"
        )
        #expect(
            fixture.rules.network.map(\.key) == [
                "/e$domain=a.example|~sub.a.example", "/g$domain=b.example|~x.b.example",
            ])
        #expect(fixture.skips == ["mixed-domain-conflict": 1])
    }

    @Test func mixedDomainsThatCannotBeExpressedAreSkipped() {
        #expect(skip("/h$domain=a.example|~b.a.example|c.b.a.example") == ["mixed-domain-nested": 1])
        #expect(skip("@@/i$domain=a.example|~b.a.example") == ["mixed-domain-exception": 1])
        #expect(skip("/j$important,domain=a.example|~b.a.example") == ["mixed-domain-important": 1])
        #expect(skip("/k$domain=google.*") == ["entity-domain": 1])
        #expect(skip("/l$domain=a.example|~[::1]") == ["invalid-domain": 1])
    }

    // MARK: Exceptions, important, site exceptions

    @Test func exceptionsIgnorePreviousRules() {
        let fixture = RuleConversionFixture("@@||cdn.example^$script")
        #expect(
            fixture.networkJSON == [
                #"{"trigger":{"url-filter":"\#(Self.host)cdn\\.example[/:]","resource-type":["script"]},"action":{"type":"ignore-previous-rules"}}"#
            ])
        #expect(fixture.rules.network[0].kind == .exception)
        #expect(fixture.rules.network[0].anchorHost == "cdn.example")
    }

    @Test func importantBlocksAreTheirOwnKind() {
        let fixture = RuleConversionFixture("||ads.example^$important")
        #expect(fixture.networkJSON == [block(Self.host + #"ads\\.example[/:]"#)])
        #expect(fixture.rules.network[0].kind == .importantBlock)
        #expect(skip("@@||ads.example^$important") == ["unsupported-option": 1])
    }

    /// A typeless `$important` path block names ABP's default types instead of relying on the
    /// navigation guards, so no guard has to follow the exceptions it must come after.
    @Test func typelessImportantPathBlocksNameTheirTypes() {
        let fixture = RuleConversionFixture("||cdn.example/gtm.js$important,domain=a.example")
        #expect(
            fixture.networkJSON == [
                block(
                    Self.host + #"cdn\\.example/gtm\\.js"#,
                    #","resource-type":["image","style-sheet","script","font","svg-document","media","ping","fetch","websocket","other"],"if-domain":["*a.example"]"#
                ),
                block(
                    Self.host + #"cdn\\.example/gtm\\.js"#,
                    #","resource-type":["document"],"load-context":["child-frame"],"if-domain":["*a.example"]"#),
            ])
        #expect(fixture.rules.network.allSatisfy { $0.kind == .importantBlock && $0.navigation == .unaffected })
        // The same block without `$important` keeps one typeless trigger and the guards.
        let plain = RuleConversionFixture("||cdn.example/gtm.js$domain=a.example")
        #expect(plain.rules.network.map(\.navigation) == [.needsGuard])
    }

    @Test func siteExceptionsOfEachScope() {
        let fixture = RuleConversionFixture(
            "@@||a.example^$document\n@@||b.example^$elemhide\n@@||c.example^$generichide\n@@||d.example^$genericblock\n@@||Bücher.example^$ghide"
        )
        let expected = ["a.example", "b.example", "c.example", "d.example", "xn--bcher-kva.example"].map {
            #"{"trigger":{"url-filter":".*","if-domain":["*\#($0)"]},"action":{"type":"ignore-previous-rules"}}"#
        }
        #expect(fixture.rules.siteExceptions.map { String(decoding: $0.json, as: UTF8.self) } == expected)
        #expect(
            fixture.rules.siteExceptions.map(\.scope) == [
                .document, .elementHiding, .genericHiding, .genericBlocking, .genericHiding,
            ])
        #expect(fixture.rules.network.isEmpty)
        #expect(fixture.report.converted == 5)
    }

    @Test func siteExceptionsByPageDomain() {
        let fixture = RuleConversionFixture("@@$generichide,domain=b.example|A.example\n@@*$document,domain=c.example")
        #expect(
            fixture.rules.siteExceptions.map { String(decoding: $0.json, as: UTF8.self) } == [
                #"{"trigger":{"url-filter":".*","if-domain":["*a.example","*b.example"]},"action":{"type":"ignore-previous-rules"}}"#,
                #"{"trigger":{"url-filter":".*","if-domain":["*c.example"]},"action":{"type":"ignore-previous-rules"}}"#,
            ])
        #expect(fixture.rules.siteExceptions.map(\.scope) == [.genericHiding, .document])
        #expect(skip("@@$generichide,domain=a.example|~b.a.example") == ["site-exception-pattern": 1])
        #expect(skip("@@$generichide") == ["site-exception-pattern": 1])
    }

    @Test func siteExceptionsThatAreNotWholeSitesAreSkipped() {
        #expect(skip("@@||a.example/path$document,third-party") == ["site-exception-pattern": 1])
        #expect(skip("@@||a.example/path$genericblock") == ["genericblock-pattern": 1])
        #expect(skip("@@||a.example^$elemhide,domain=b.example") == ["site-exception-pattern": 1])
        #expect(skip("@@||a.example^$document,subdocument") == ["site-exception-pattern": 1])
        #expect(skip("||a.example^$elemhide") == ["unsupported-option": 1])
    }

    @Test func badfilterCancelsTheIdenticalFilter() {
        let fixture = RuleConversionFixture("||x.example^$script\n||y.example^$script\n||x.example^$script,badfilter")
        #expect(fixture.rules.network.map(\.key) == ["||y.example^$script"])
        #expect(fixture.skips == ["badfilter": 1, "cancelled-by-badfilter": 1])
    }

    @Test func inexpressibleOptionsAreSkippedByName() {
        #expect(skip("||a.example^$csp=script-src 'none'") == ["option-csp": 1])
        #expect(skip("||a.example^$script,redirect=noop.js") == ["option-redirect": 1])
        #expect(skip("||a.example^$rewrite=abp-resource:blank-js") == ["option-rewrite": 1])
        #expect(skip("||a.example^$removeparam=utm") == ["option-removeparam": 1])
        #expect(skip("||a.example^$sitekey=abc") == ["option-sitekey": 1])
        #expect(skip("||a.example^$webrtc") == ["unsupported-option": 1])
        #expect(skip("||a.example^$xhr,method=post") == ["unsupported-option": 1])
        #expect(skip("||a.example^$script,,image") == ["unsupported-option": 1])
    }

    @Test func everyEmittedRulePassesTheValidator() {
        let lines = """
            ||ads.example^
            /ads^
            /a$script,subdocument,domain=a.example|~b.a.example
            @@||cdn.example^$script,third-party
            /neg$~image
            /^https?:\\/\\/x\\d\\.example\\//$match-case
            @@||site.example^$document
            """
        let fixture = RuleConversionFixture(lines)
        #expect(fixture.skippedTotal == 0)
        #expect(fixture.validatorProblems.isEmpty)
    }
}
