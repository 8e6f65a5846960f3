import Foundation
import Testing

@testable import Converter

/// What each `ConversionTarget` writes for the rules whose meaning depends on the WebKit: the
/// `safari-26` frame conditions, and the two conversions both targets share.
@Suite struct ConversionTargetTests {
    static let host = #"^[^:]+://+([^:/]+\\.)?"#
    /// `a.example` as a frame-URL regex, as it appears inside JSON text.
    static let frameA = #"^[^:]+://+([^:/]+\\.)?a\\.example[/:]"#

    private func networkJSON(_ text: String, _ target: ConversionTarget) -> [String] {
        let (rules, _, _) = RuleConverter(target: target).convert([
            FilterListSource(id: "test", bytes: Array(text.utf8))
        ])
        return rules.network.flatMap { [$0.json] + ($0.carveOut.map { [$0] } ?? []) }.map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    private func rule(_ trigger: String, _ action: String = "block") -> String {
        #"{"trigger":{"url-filter":"\#(Self.host)ads\\.example/x"\#(trigger)},"action":{"type":"\#(action)"}}"#
    }

    @Test func safari17JudgesDomainsOnTheTopPage() {
        #expect(
            networkJSON("||ads.example/x$script,domain=a.example", .safari17)
                == [rule(#","resource-type":["script"],"if-domain":["*a.example"]"#)])
    }

    @Test func safari26JudgesIncludedAndExcludedDomainsInTheFrame() {
        #expect(
            networkJSON("||ads.example/x$script,domain=a.example", .safari26)
                == [rule(#","resource-type":["script"],"if-frame-url":["\#(Self.frameA)"]"#)])
        #expect(
            networkJSON("@@||ads.example/x$script,domain=~a.example", .safari26)
                == [
                    rule(
                        #","resource-type":["script"],"unless-frame-url":["\#(Self.frameA)"]"#, "ignore-previous-rules")
                ])
    }

    @Test func safari26MixedDomainsAreABlockAndAFrameCarveOut() {
        let carve = #"^[^:]+://+([^:/]+\\.)?b\\.a\\.example[/:]"#
        #expect(
            networkJSON("||ads.example/x$image,domain=a.example|~b.a.example", .safari26) == [
                rule(#","resource-type":["image","svg-document"],"if-frame-url":["\#(Self.frameA)"]"#),
                rule(
                    #","resource-type":["image","svg-document"],"if-frame-url":["\#(carve)"]"#, "ignore-previous-rules"),
            ])
    }

    /// A frame's own load is matched against `about:blank` by WebKitGTK 2.50.6: document loads keep `if-domain`.
    @Test func safari26KeepsDocumentLoadsOnTheTopPage() {
        #expect(
            networkJSON("||ads.example/x$subdocument,domain=a.example", .safari26)
                == [rule(#","resource-type":["document"],"load-context":["child-frame"],"if-domain":["*a.example"]"#)])
        let subresources =
            #""image","style-sheet","script","font","svg-document","media","popup","ping","fetch","websocket","other""#
        #expect(
            networkJSON("||ads.example/x$domain=~a.example", .safari26) == [
                rule(#","resource-type":[\#(subresources)],"unless-frame-url":["\#(Self.frameA)"]"#),
                rule(#","resource-type":["document"],"unless-domain":["*a.example"]"#),
            ])
        #expect(networkJSON("||ads.example/x", .safari26) == [rule("")], "no domain: nothing to judge in the frame")
    }

    @Test func abpHasBecomesNativeHasOnBothTargets() {
        for target in ConversionTarget.allCases {
            let (rules, reports, _) = RuleConverter(target: target).convert([
                FilterListSource(
                    id: "test",
                    bytes: Array(
                        """
                        a.example#?#div:-abp-has(> .ad)
                        b.example#?#.plain
                        c.example#?#div:-abp-has(span:-abp-contains(Ad))
                        """.utf8))
            ])
            #expect(rules.cosmetic.map(\.selector) == ["div:has(> .ad)", ".plain"])
            #expect(reports[0].skipped.mapValues(\.count) == ["extended-css": 1])
        }
    }

    @Test func pagePatternExceptionsUseTheTopURL() {
        let fixture = RuleConversionFixture(
            "@@||search.example/find?$generichide\n@@://localhost:$generichide\n@@||a.example^$generichide")
        #expect(
            fixture.rules.siteExceptions.map { String(decoding: $0.json, as: UTF8.self) } == [
                #"{"trigger":{"url-filter":".*","if-top-url":["\#(Self.host)search\\.example/find\\?"]},"action":{"type":"ignore-previous-rules"}}"#,
                #"{"trigger":{"url-filter":".*","if-top-url":["://localhost:"]},"action":{"type":"ignore-previous-rules"}}"#,
                #"{"trigger":{"url-filter":".*","if-domain":["*a.example"]},"action":{"type":"ignore-previous-rules"}}"#,
            ])
        #expect(fixture.rules.siteExceptions.map(\.pages) == [["search.example"], [], ["a.example"]])
        #expect(fixture.rules.siteExceptions.map(\.pagePattern) == [true, true, false])
    }

    /// A page-pattern exception stays a rule of its own after the merged site exceptions of a list.
    @Test func pagePatternExceptionsAreNotMergedIntoTheSiteRun() throws {
        let text = "##.ad\n@@||a.example^$generichide\n@@||b.example^$generichide\n@@||c.example/p/$generichide"
        let output = try ListConverter().convert([FilterListSource(id: "test", bytes: Array(text.utf8))])
        let generic = try #require(output.lists.first { $0.id.hasPrefix("cosmetic-generic") })
        let json = String(decoding: generic.json, as: UTF8.self).replacingOccurrences(of: "\n", with: "")
        #expect(
            json.hasSuffix(
                #"{"trigger":{"url-filter":".*","if-domain":["*a.example","*b.example"]},"action":{"type":"ignore-previous-rules"}},{"trigger":{"url-filter":".*","if-top-url":["\#(Self.host)c\\.example/p/"]},"action":{"type":"ignore-previous-rules"}}]"#
            ), "\(json)")
    }
}

/// Layout of `safari-26` rules: a rule judged in the frame acts on any top page.
@Suite struct ConversionTargetLayoutTests {
    /// `@@||b.example^$document` turns blocking off on b.example pages, frames included: a block judged
    /// in an a.example frame must find it in its list, though a.example and b.example are unrelated.
    @Test func frameRulesCarryEverySiteException() throws {
        let text = "||ads.example/x$image,domain=a.example\n@@||b.example^$document"
        for target in ConversionTarget.allCases {
            var configuration = ConverterConfiguration()
            configuration.target = target
            let output = try ListConverter(configuration: configuration).convert([
                FilterListSource(id: "test", bytes: Array(text.utf8))
            ])
            let list = try #require(
                output.lists.first { String(decoding: $0.json, as: UTF8.self).contains("ads\\\\.example/x") })
            let carries = String(decoding: list.json, as: UTF8.self).contains(
                #""if-domain":["*b.example"]},"action":{"type":"ignore-previous-rules"}"#)
            #expect(carries == (target == .safari26), "\(target)")
        }
    }
}
