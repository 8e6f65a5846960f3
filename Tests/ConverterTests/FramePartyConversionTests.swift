import PublicSuffix
import Testing

@testable import Converter

/// `$third-party` / `~third-party` on `safari-26`: judged in the frame for rules anchored to a host
/// whose site is fixed, exact JSON per shape; `load-type` (the top page) everywhere else.
@Suite struct FramePartyConversionTests {
    static let host = #"^[^:]+://+([^:/]+\\.)?"#
    /// `cdn.example` has a public suffix below it; `s3.cdn.example` is one.
    static let suffixes = PublicSuffixList(text: "example\ns3.cdn.example\n")
    static func site(_ name: String) -> String {
        Self.host + name.replacingOccurrences(of: ".", with: #"\\."#) + "[/:]"
    }
    static let ads = site("ads.example")
    static let siteA = site("a.example")
    static let subresources =
        #""image","style-sheet","script","font","svg-document","media","popup","ping","fetch","websocket","other""#

    private func convert(_ text: String, _ target: ConversionTarget = .safari26, suffixes: PublicSuffixList? = suffixes)
        -> (json: [String], skipped: [String: Int])
    {
        let (rules, reports, _) = RuleConverter(target: target, publicSuffixes: suffixes).convert([
            FilterListSource(id: "test", bytes: Array(text.utf8))
        ])
        let json = rules.network.flatMap { [$0.json] + ($0.carveOut.map { [$0] } ?? []) }.map {
            String(decoding: $0, as: UTF8.self)
        }
        return (json, reports[0].skipped.mapValues(\.count))
    }

    private func rule(_ trigger: String, host: String = "ads", action: String = "block") -> String {
        #"{"trigger":{"url-filter":"\#(Self.host)\#(host)\\.example/x"\#(trigger)},"action":{"type":"\#(action)"}}"#
    }

    @Test func thirdPartyIsTheFrameOffTheRequestsSite() {
        #expect(
            convert("||ads.example/x$script,third-party").json
                == [rule(#","resource-type":["script"],"unless-frame-url":["\#(Self.ads)"]"#)])
        #expect(
            convert("@@||ads.example/x$script,third-party").json == [
                rule(
                    #","resource-type":["script"],"unless-frame-url":["\#(Self.ads)"]"#, action: "ignore-previous-rules"
                )
            ])
    }

    @Test func firstPartyIsTheFrameOnTheRequestsSite() {
        #expect(
            convert("||ads.example/x$script,~third-party").json
                == [rule(#","resource-type":["script"],"if-frame-url":["\#(Self.ads)"]"#)])
    }

    /// A typeless `$third-party` rule with no `$domain` keeps `load-type`: it blocks the site's
    /// iframes on other sites' pages itself (and judging it in the frame cost 11 % of a first compile).
    @Test func typelessThirdPartyKeepsTheTopPageTest() {
        #expect(convert("||ads.example/x$third-party").json == [rule(#","load-type":["third-party"]"#)])
    }

    /// `if-frame-url` would never let a document load through: those keep `load-type`, in a trigger of their own.
    @Test func typelessFirstPartySplitsOffDocumentLoads() {
        #expect(
            convert("||ads.example/x$~third-party").json == [
                rule(#","resource-type":[\#(Self.subresources)],"if-frame-url":["\#(Self.ads)"]"#),
                rule(#","resource-type":["document"],"load-type":["first-party"]"#),
            ])
        #expect(
            convert("||ads.example/x$subdocument,~third-party").json
                == [rule(#","resource-type":["document"],"load-type":["first-party"],"load-context":["child-frame"]"#)])
    }

    /// WebKit takes one condition per trigger: the party test and `$domain` become one frame condition.
    @Test func partyAndDomainsAreOneFrameCondition() {
        #expect(
            convert("||ads.example/x$script,third-party,domain=a.example|ads.example").json
                == [rule(#","resource-type":["script"],"if-frame-url":["\#(Self.siteA)"]"#)])
        #expect(
            convert("||ads.example/x$script,third-party,domain=~a.example").json
                == [rule(#","resource-type":["script"],"unless-frame-url":["\#(Self.siteA)","\#(Self.ads)"]"#)])
        let sub = Self.site("sub.ads.example")
        #expect(
            convert("||ads.example/x$script,~third-party,domain=sub.ads.example|a.example").json
                == [rule(#","resource-type":["script"],"if-frame-url":["\#(sub)"]"#)])
    }

    @Test func contradictionsAreSkipped() {
        for line in [
            "||ads.example/x$script,~third-party,domain=a.example",
            "||ads.example/x$script,third-party,domain=ads.example",
        ] {
            let converted = convert(line)
            #expect(converted.json.isEmpty, "\(line)")
            #expect(converted.skipped == ["party-contradicts-domain": 1], "\(line)")
        }
    }

    /// The request's site is not fixed: not anchored, anchored to a public suffix, or to a domain with
    /// one below it, no list of registrable domains, or a target that judges the party on the top page.
    @Test func otherRulesKeepTheTopPageTest() {
        let party = #","resource-type":["script"],"load-type":["third-party"]"#
        #expect(
            convert("/x$script,third-party").json
                == [
                    #"{"trigger":{"url-filter":"/x","resource-type":["script"],"load-type":["third-party"]},"action":{"type":"block"}}"#
                ])
        #expect(
            convert("||s3.cdn.example/x$script,third-party").json.first?.contains(#""load-type":["third-party"]}"#)
                == true)
        #expect(
            convert("||www.cdn.example/x$script,third-party").json.first?.contains(#""load-type":["third-party"]}"#)
                == true)
        #expect(convert("||ads.example/x$script,third-party", suffixes: nil).json == [rule(party)])
        #expect(convert("||ads.example/x$script,third-party", .safari17).json == [rule(party)])
    }

    @Test func sharedRegistrableDomains() {
        let list = PublicSuffixList(text: "com\nco.uk\n*.ck\n!www.ck\ns3.amazonaws.com\n")
        #expect(list.sharedRegistrableDomain(of: "ads.tracker.co.uk") == "tracker.co.uk")
        #expect(list.sharedRegistrableDomain(of: "co.uk") == nil)
        #expect(list.sharedRegistrableDomain(of: "a.ck") == nil)
        #expect(list.sharedRegistrableDomain(of: "www.ck") == "www.ck")
        #expect(list.sharedRegistrableDomain(of: "cdn.amazonaws.com") == nil)
        #expect(list.sharedRegistrableDomain(of: "bucket.s3.amazonaws.com") == "bucket.s3.amazonaws.com")
        #expect(list.sharedRegistrableDomain(of: "10.0.0.1") == "10.0.0.1")
    }

    /// The list's text format: a rule is a line's first word, `//` starts a comment, lines end in LF
    /// or CRLF, rules match case-insensitively, Unicode rules go through `toASCII`, and the ICANN
    /// section's country-code second levels are told from the private section's.
    @Test func theListIsReadAsPublishedText() {
        let text = """
            // a comment naming example.test, not a rule\r
            // ===BEGIN ICANN DOMAINS===\r
            CO.UK trailing words are ignored\r
            \tcom.au\r
            ëx\r
            // ===END ICANN DOMAINS===
            // ===BEGIN PRIVATE DOMAINS===
            co.zz

            """
        let list = PublicSuffixList(text: text, toASCII: { $0 == "ëx" ? "xn--x-xia" : $0 })
        #expect(list.registrableDomain(of: "www.example.test") == "example.test")
        #expect(list.registrableDomain(of: "a.shop.co.uk") == "shop.co.uk")
        #expect(list.registrableDomain(of: "a.shop.com.au") == "shop.com.au")
        #expect(list.registrableDomain(of: "a.b.xn--x-xia") == "b.xn--x-xia")
        #expect(list.registrableDomain(of: "a.shop.co.zz") == "shop.co.zz")
        #expect(list.countryCodeSuffixes(firstLabels: ["co", "com"]) == ["co.uk", "com.au"])
    }
}
