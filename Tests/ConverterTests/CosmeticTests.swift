import Testing

@testable import Converter

/// Element hiding: domains, `#@#` folding and selector screening.
@Suite struct CosmeticTests {
    private func selectors(_ text: String) -> [CosmeticSelector] { RuleConversionFixture(text).rules.cosmetic }

    private func skip(_ line: String) -> [String: Int] {
        let fixture = RuleConversionFixture(line)
        #expect(fixture.rules.cosmetic.isEmpty)
        return fixture.skips
    }

    @Test func genericSelector() {
        #expect(
            selectors("##.ad-banner") == [
                CosmeticSelector(key: "##.ad-banner", selector: ".ad-banner", domains: .everywhere, sourceID: "test")
            ])
    }

    @Test func siteSpecificSelectorSortsLowercasesAndPunycodes() {
        #expect(
            selectors("Zeta.example,bücher.example,alpha.example##div > .ad") == [
                CosmeticSelector(
                    key: "Zeta.example,bücher.example,alpha.example##div > .ad", selector: "div > .ad",
                    domains: .only(["alpha.example", "xn--bcher-kva.example", "zeta.example"]), sourceID: "test")
            ])
    }

    @Test func negatedDomainsOnlyMeanEverywhereExcept() {
        #expect(selectors("~a.example,~b.example##.ad").map(\.domains) == [.except(["a.example", "b.example"])])
    }

    @Test func mixedDomains() {
        #expect(selectors("a.example,~b.example##.ad").map(\.domains) == [.only(["a.example"])])
        #expect(skip("a.example,~sub.a.example##.ad") == ["mixed-domain-cosmetic": 1])
        #expect(skip("google.*##.ad") == ["entity-domain": 1])
    }

    @Test func siteExceptionFoldsIntoTheGenericRule() {
        let fixture = RuleConversionFixture("##.ad\nb.example#@#.ad\na.example#@#.ad\n##.other")
        #expect(fixture.rules.cosmetic.map(\.domains) == [.except(["a.example", "b.example"]), .everywhere])
        #expect(fixture.report.converted == 4)
    }

    @Test func exceptionBeforeOrAfterTheRuleFoldsTheSame() {
        #expect(selectors("a.example#@#.ad\n##.ad").map(\.domains) == [.except(["a.example"])])
        #expect(selectors("~c.example##.ad\na.example#@#.ad").map(\.domains) == [.except(["a.example", "c.example"])])
    }

    @Test func genericExceptionRemovesTheSelectorEverywhere() {
        let fixture = RuleConversionFixture("##.ad\nsite.example##.ad\n#@#.ad\n##.kept")
        #expect(fixture.rules.cosmetic.map(\.selector) == [".kept"])
        #expect(fixture.skips == ["cancelled-by-exception": 2])
    }

    @Test func siteExceptionRemovesThatSiteFromASpecificRule() {
        #expect(selectors("a.example,b.example##.x\na.example#@#.x").map(\.domains) == [.only(["b.example"])])
        #expect(selectors("sub.a.example,b.example##.x\na.example#@#.x").map(\.domains) == [.only(["b.example"])])
        #expect(skip("a.example##.x\na.example#@#.x") == ["cancelled-by-exception": 1])
        #expect(skip("a.example##.x\nsub.a.example#@#.x") == ["cosmetic-exception-inexact": 1])
    }

    @Test func exceptionMatchesTheExactSelectorText() {
        #expect(selectors("##.ad\na.example#@#.ad \n").map(\.domains) == [.except(["a.example"])])
        #expect(selectors("##.ad\na.example#@#div.ad").map(\.domains) == [.everywhere])
    }

    @Test func proceduralAndScriptFiltersAreSkippedByName() {
        #expect(skip("a.example#?#div:-abp-has(span:-abp-contains(Ad))") == ["extended-css": 1])
        #expect(skip("a.example##div:-abp-contains(Ad)") == ["extended-css": 1])
        #expect(skip("a.example##div:has-text(Sponsored)") == ["extended-css": 1])
        #expect(skip("a.example##div:contains(Ad)") == ["extended-css": 1])
        #expect(skip("a.example##:xpath(//div)") == ["extended-css": 1])
        #expect(skip("a.example##body:style(overflow: auto)") == ["extended-css": 1])
        #expect(skip("a.example#$#abort-on-property-read ads") == ["snippet": 1])
        #expect(skip("a.example##+js(aopr, ads)") == ["snippet": 1])
        #expect(skip("a.example#%#window.x = 1") == ["snippet": 1])
        #expect(skip("a.example##^script:has-text(ads)") == ["html-filter": 1])
    }

    @Test func selectorsWebKitWouldDropAreSkipped() {
        #expect(skip("##div[") == ["invalid-selector": 1])
        #expect(skip("##$%") == ["invalid-selector": 1])
        #expect(skip("##.a:nonsense") == ["invalid-selector": 1])
        #expect(skip("##.a::before") == ["invalid-selector": 1])
        #expect(skip("##a[href=\"x]") == ["invalid-selector": 1])
        #expect(skip("##.a{color:red}") == ["invalid-selector": 1])
        #expect(skip("##> .a") == ["invalid-selector": 1])
        #expect(skip("##.a,") == ["invalid-selector": 1])
        #expect(skip("##:not(.a") == ["invalid-selector": 1])
    }

    @Test func supportedSelectorsPass() {
        let lines = [
            "##div:has(> .ad)", "##a[href*=\"://ads.\"]", "##.a:not(.b), .c", "##li:nth-child(2n+1)",
            "##[id^=\"div-gpt-ad\"]",
            #"##.ad\:top"#, "##div[style=\"width: 300px;\"]", "##div[data-x='a]b']",
        ]
        let fixture = RuleConversionFixture(lines.joined(separator: "\n"))
        #expect(fixture.rules.cosmetic.count == lines.count)
        #expect(fixture.validatorProblems.isEmpty)
    }
}
