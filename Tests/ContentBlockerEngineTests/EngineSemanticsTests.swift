import PublicSuffix
import Testing

@testable import ContentBlockerEngine

/// WebKit's semantics on hand-written lists, one rule at a time (docs/webkit-format.md has the
/// measurements behind each): exceptions stay in their list, conditions read the main document.
@Suite struct EngineSemanticsTests {
    /// Registrable domain = the last two labels: enough for these hosts.
    struct LastTwoLabels: RegistrableDomainProvider {
        func registrableDomain(of host: String) -> String {
            host.split(separator: ".").suffix(2).joined(separator: ".")
        }
    }

    func engine(_ lists: [(String, String)]) throws -> ContentBlockerEngine {
        try ContentBlockerEngine(lists: lists.map { ($0.0, Array($0.1.utf8)) }, registrableDomains: LastTwoLabels())
    }

    func request(_ url: String, page: String, _ type: ABPRequestType = .script) throws -> BlockerRequest {
        try BlockerRequest(url: url, source: page, type: type)
    }

    static let block = #"{"trigger":{"url-filter":"ads\\.js"},"action":{"type":"block"}}"#
    static let allowAll = #"{"trigger":{"url-filter":".*"},"action":{"type":"ignore-previous-rules"}}"#

    @Test func anExceptionCancelsOnlyEarlierRulesOfItsOwnList() throws {
        let page = "https://news.example/"
        let same = try engine([("a", "[\(Self.block),\(Self.allowAll)]")])
        #expect(!same.isBlocked(try request("https://cdn.example/ads.js", page: page)))
        let before = try engine([("a", "[\(Self.allowAll),\(Self.block)]")])
        #expect(
            before.isBlocked(try request("https://cdn.example/ads.js", page: page)),
            "an exception before the block cancels nothing")
        let other = try engine([("a", "[\(Self.block)]"), ("b", "[\(Self.allowAll)]")])
        let answer = other.explain(try request("https://cdn.example/ads.js", page: page))
        #expect(answer.verdict == .blocked, "an exception in another list does not override a block")
        #expect(answer.blockingRules.map(\.listID) == ["a"])
        #expect(answer.blockingRules.first?.json == Self.block)
    }

    @Test func domainConditionsReadTheMainDocumentHost() throws {
        let rules = try engine([
            (
                "a",
                #"[{"trigger":{"url-filter":"ads","if-domain":["*news.example"]},"action":{"type":"block"}},{"trigger":{"url-filter":"track","if-domain":["exact.example"]},"action":{"type":"block"}},{"trigger":{"url-filter":"pixel","unless-domain":["*news.example"]},"action":{"type":"block"}}]"#
            )
        ])
        #expect(rules.isBlocked(try request("https://x.com/ads", page: "https://news.example/")))
        #expect(rules.isBlocked(try request("https://x.com/ads", page: "https://www.news.example/")))
        #expect(!rules.isBlocked(try request("https://x.com/ads", page: "https://othernews.example/")))
        #expect(rules.isBlocked(try request("https://x.com/track", page: "https://exact.example/")))
        #expect(
            !rules.isBlocked(try request("https://x.com/track", page: "https://www.exact.example/")),
            "no * means the exact host only")
        #expect(!rules.isBlocked(try request("https://x.com/pixel", page: "https://a.news.example/")))
        #expect(rules.isBlocked(try request("https://x.com/pixel", page: "https://b.example/")))
    }

    @Test func loadTypeComparesRegistrableDomains() throws {
        let rules = try engine([
            ("a", #"[{"trigger":{"url-filter":"ads","load-type":["third-party"]},"action":{"type":"block"}}]"#)
        ])
        #expect(!rules.isBlocked(try request("https://cdn.news.example/ads", page: "https://www.news.example/")))
        #expect(rules.isBlocked(try request("https://cdn.other.example/ads", page: "https://www.news.example/")))
        #expect(
            !rules.isBlocked(try request("https://cdn.other.example/ads", page: "")),
            "a request without a page is its own page")
    }

    @Test func resourceTypeAndLoadContextFollowTheABPType() throws {
        let rules = try engine([
            (
                "a",
                #"[{"trigger":{"url-filter":"frame","resource-type":["document"],"load-context":["child-frame"]},"action":{"type":"block"}},{"trigger":{"url-filter":"sheet","resource-type":["style-sheet"]},"action":{"type":"block"}},{"trigger":{"url-filter":"beacon","resource-type":["ping"]},"action":{"type":"block"}}]"#
            )
        ])
        let page = "https://news.example/"
        #expect(rules.isBlocked(try request("https://x.com/frame", page: page, .subdocument)))
        #expect(
            !rules.isBlocked(try request("https://x.com/frame", page: page, .document)),
            "a top-frame document is not a child frame")
        #expect(!rules.isBlocked(try request("https://x.com/frame", page: page, .script)))
        #expect(rules.isBlocked(try request("https://x.com/sheet", page: page, .stylesheet)))
        #expect(
            !rules.isBlocked(try request("https://x.com/beacon", page: page, .ping)),
            "WebKitGTK matches beacons as other, never ping")
    }

    @Test func caseSensitivityIsPerRule() throws {
        let rules = try engine([
            (
                "a",
                #"[{"trigger":{"url-filter":"/Ads/"},"action":{"type":"block"}},{"trigger":{"url-filter":"/Track/","url-filter-is-case-sensitive":true},"action":{"type":"block"}}]"#
            )
        ])
        #expect(rules.isBlocked(try request("https://x.com/ads/1", page: "https://p.example/")))
        #expect(rules.isBlocked(try request("https://x.com/Track/1", page: "https://p.example/")))
        #expect(!rules.isBlocked(try request("https://x.com/track/1", page: "https://p.example/")))
    }

    @Test func hidingSelectorsComeFromThePageLoadInListOrder() throws {
        let rules = try engine([
            (
                "generic",
                #"[{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":".ad"}},{"trigger":{"url-filter":".*","if-domain":["*quiet.example"]},"action":{"type":"ignore-previous-rules"}}]"#
            ),
            (
                "sites",
                ##"[{"trigger":{"url-filter":"^[^:]+://+([^:/]+\\.)?quiet\\.example[/:]","resource-type":["document"]},"action":{"type":"css-display-none","selector":"#promo"}}]"##
            ),
        ])
        let loud = rules.explain(try request("https://x.com/a.js", page: "https://loud.example/"))
        #expect(loud.hidingSelectors.map(\.selector) == [".ad"])
        #expect(loud.pageExceptions.isEmpty)
        let quiet = rules.explain(try request("https://x.com/a.js", page: "https://www.quiet.example/"))
        #expect(quiet.hidingSelectors.map(\.selector) == ["#promo"])
        #expect(quiet.pageExceptions.map { "\($0.listID) #\($0.index)" } == ["generic #1"])
        #expect(quiet.verdict == .allowedNoRule)
    }

    @Test func otherActionsAreReportedAndDoNotBlock() throws {
        let rules = try engine([
            (
                "a",
                #"[{"trigger":{"url-filter":"cookie"},"action":{"type":"block-cookies"}},{"trigger":{"url-filter":"^http:"},"action":{"type":"make-https"}}]"#
            )
        ])
        let answer = rules.explain(try request("http://x.com/cookie", page: "http://p.example/"))
        #expect(answer.verdict == .allowedNoRule)
        #expect(answer.otherActions.map(\.action) == [.blockCookies, .makeHTTPS])
    }

    @Test func aListWebKitWouldRefuseIsRefused() {
        #expect(throws: RuleListError.self) {
            try engine([("a", #"[{"trigger":{"url-filter":"a|b"},"action":{"type":"block"}}]"#)])
        }
        #expect(throws: RuleListError.self) {
            try engine([
                (
                    "a",
                    #"[{"trigger":{"url-filter":"a","if-domain":["x.com"],"unless-domain":["y.com"]},"action":{"type":"block"}}]"#
                )
            ])
        }
        #expect(throws: RuleListError.self) {
            try engine([
                ("a", #"[{"trigger":{"url-filter":"a","resource-type":["stylesheet"]},"action":{"type":"block"}}]"#)
            ])
        }
        #expect(throws: RuleListError.self) { try engine([("a", #"{"trigger":{}}"#)]) }
    }

    @Test func theIndexFindsWhatAFullScanFinds() throws {
        let lists = [
            (
                "a",
                #"[{"trigger":{"url-filter":"^[^:]+://+([^:/]+\\.)?doubleclick\\.net[/:]"},"action":{"type":"block"}},{"trigger":{"url-filter":"/banner[0-9]+\\.gif"},"action":{"type":"block"}},{"trigger":{"url-filter":"\\.net/allow"},"action":{"type":"ignore-previous-rules"}}]"#
            )
        ]
        let indexed = try engine(lists)
        let scanning = try ContentBlockerEngine(
            lists: lists.map { ($0.0, Array($0.1.utf8)) }, registrableDomains: LastTwoLabels(), indexing: .none)
        for url in [
            "https://ad.doubleclick.net/x", "https://DOUBLECLICK.NET/x", "https://doubleclick.net/allow",
            "https://x.com/banner12.gif", "https://x.com/banner.gif",
        ] {
            let request = try request(url, page: "https://p.example/")
            #expect(indexed.explain(request) == scanning.explain(request), "\(url)")
        }
        #expect(indexed.isBlocked(try request("https://DOUBLECLICK.NET/x", page: "https://p.example/")))
        #expect(!indexed.isBlocked(try request("https://doubleclick.net/allow", page: "https://p.example/")))
    }
}
