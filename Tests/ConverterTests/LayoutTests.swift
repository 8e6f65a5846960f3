@testable import Converter
import Foundation
import Testing
import TestSupport

/// Hand-built layout inputs shared by the layout, stability and determinism tests.
enum LayoutFixture {
    static func block(_ host: String, source: String = "easylist") -> NetworkRule {
        NetworkRule(key: "||\(host)^", kind: .block, json: json(filter: host, action: "block"), anchorHost: host, sourceID: source)
    }

    static func path(_ text: String, source: String = "easylist") -> NetworkRule {
        NetworkRule(key: text, kind: .block, json: json(filter: text, action: "block"), anchorHost: nil, sourceID: source)
    }

    static func siteBlock(_ host: String, on site: String) -> NetworkRule {
        let json = Array(#"{"trigger":{"url-filter":"\#(host)","if-domain":["*\#(site)"]},"action":{"type":"block"}}"#.utf8)
        return NetworkRule(key: "||\(host)^$domain=\(site)", kind: .block, json: json, anchorHost: host, sourceID: "easylist",
                           pageCondition: .only([site]))
    }

    static func exception(_ host: String?, key: String? = nil) -> NetworkRule {
        let text = key ?? "@@||\(host ?? "any")^"
        return NetworkRule(key: text, kind: .exception, json: json(filter: host ?? text, action: "ignore-previous-rules"),
                           anchorHost: host, sourceID: "easylist")
    }

    static func important(_ host: String) -> NetworkRule {
        NetworkRule(key: "||\(host)^$important", kind: .importantBlock, json: json(filter: host + "-important", action: "block"),
                    anchorHost: host, sourceID: "easylist")
    }

    static func site(_ scope: SiteException.Scope, _ host: String) -> SiteException {
        let json = Array(#"{"trigger":{"url-filter":".*","if-domain":["*\#(host)"]},"action":{"type":"ignore-previous-rules"},"scope":"\#(scope)"}"#.utf8)
        return SiteException(key: "@@||\(host)^$\(scope)", scope: scope, json: json, sourceID: "easylist", pages: [host])
    }

    static func generic(_ selector: String) -> CosmeticSelector {
        CosmeticSelector(key: "##" + selector, selector: selector, domains: .everywhere, sourceID: "easylist")
    }

    static func onSites(_ selector: String, _ domains: [String]) -> CosmeticSelector {
        CosmeticSelector(key: domains.joined(separator: ",") + "##" + selector, selector: selector, domains: .only(domains), sourceID: "easylist")
    }

    static func except(_ selector: String, _ domains: [String]) -> CosmeticSelector {
        CosmeticSelector(key: "##" + selector + "~" + domains.joined(separator: ","), selector: selector, domains: .except(domains), sourceID: "easylist")
    }

    /// Rules without the navigation guards, so tests about other placement read simply.
    static func noGuards() -> ConvertedRules {
        var rules = ConvertedRules()
        rules.navigationGuards = []
        return rules
    }

    static func json(filter: String, action: String) -> [UInt8] {
        Array(#"{"trigger":{"url-filter":"\#(filter)"},"action":{"type":"\#(action)"}}"#.utf8)
    }

    static func text(_ rule: [UInt8]) -> String { String(decoding: rule, as: UTF8.self) }

    static func layout(_ rules: ConvertedRules, chunkSize: Int = 30_000, maxLists: Int = 16, recentLimit: Int = 2_000,
                       previous: LayoutState? = nil) throws -> ListLayout.Result {
        let configuration = ConverterConfiguration(chunkSize: chunkSize, maxLists: maxLists, recentListLimit: recentLimit)
        return try ListLayout(configuration: configuration).layOut(rules, previous: previous)
    }

    /// A medium input: hosts, paths, an exception of each kind, cosmetic rules of each kind.
    static func mixed(hosts: Int = 5_000, paths: Int = 600, generics: Int = 300, sites: Int = 2_500) -> ConvertedRules {
        var rules = noGuards()
        for index in 0..<hosts { rules.network.append(block("h\(index).example\(index % 97).com")) }
        for index in 0..<paths { rules.network.append(path("/ad-path-\(index)/")) }
        rules.network.append(exception("h1.example1.com"))
        rules.network.append(exception(nil, key: "@@/unanchored-ok/"))
        for index in 0..<generics { rules.cosmetic.append(generic(".ad-\(index)")) }
        for index in 0..<sites { rules.cosmetic.append(onSites(".box-\(index)", ["site\(index % 700).com"])) }
        return rules
    }
}

@Suite struct LayoutTests {
    typealias F = LayoutFixture

    @Test func freshSortKeysPutAHostsLastLabelFirst() {
        func reversed(_ host: String) -> String {
            String(decoding: Array(FreshOrder(volatility: 1, churn: .calm, tail: .reversedHost(host)).bytes).dropFirst(2), as: UTF8.self)
        }
        #expect(reversed("ads.example.com") == "com.example.ads")
        #expect(reversed("localhost") == "localhost")
        #expect(reversed(".com") == "com.")
        #expect(reversed("com.") == ".com")
        #expect(reversed("a..b") == "b..a")
        #expect(reversed("") == "")
        #expect(Array(FreshOrder(volatility: Volatility.volatile, churn: .warm).bytes) == [0, 1])
        #expect(Array(FreshOrder(volatility: 1, churn: .hot, tail: .sites(["a.org", "b.net"])).bytes) == [1, 0] + Array("a.org,b.net".utf8))
        #expect(Array(FreshOrder(volatility: 1, churn: .hot, tail: .sites([])).bytes) == [1, 0])
        #expect(ListFamily.allCases.map(\.position) == Array(0..<ListFamily.allCases.count))
    }

    /// Keys are read from hosts and sites on demand; they must order exactly as their bytes would.
    @Test func freshOrderComparesAndPacksLikeItsBytes() {
        var generator = SeededGenerator(seed: 5)
        // Labels from a small alphabet (with `-`, which sorts below `.`) tie often.
        func name() -> String {
            let alphabet = Array("ab-.".utf8)
            return String(decoding: (0..<Int(generator.next() % 20)).map { _ in alphabet[Int(generator.next() % 4)] }, as: UTF8.self)
        }
        func order() -> FreshOrder {
            let volatility = UInt8(generator.next() % 2), churn = ChurnClass(rawValue: UInt8(generator.next() % 3))!
            switch generator.next() % 3 {
            case 0: return FreshOrder(volatility: volatility, churn: churn)
            case 1: return FreshOrder(volatility: volatility, churn: churn, tail: .reversedHost(name()))
            default: return FreshOrder(volatility: volatility, churn: churn, tail: .sites((0..<Int(generator.next() % 3)).map { _ in name() }))
            }
        }
        // The key as the documentation states it, built from the fields: volatility, churn class,
        // then the host with its labels last first, or the sites joined by commas.
        func reference(_ order: FreshOrder) -> [UInt8] {
            let tail: String
            switch order.tail {
            case .none: tail = ""
            case .reversedHost(let host): tail = host.split(separator: ".", omittingEmptySubsequences: false).reversed().joined(separator: ".")
            case .sites(let sites): tail = sites.joined(separator: ",")
            }
            return [order.volatility, order.churn.rawValue] + Array(tail.utf8)
        }
        func sign(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
            lhs == rhs ? 0 : (lhs.lexicographicallyPrecedes(rhs) ? -1 : 1)
        }
        // A few orders stated by hand.
        let calm = Volatility.calm, volatile = Volatility.volatile
        #expect(FreshOrder.compare(FreshOrder(volatility: volatile, churn: .calm), FreshOrder(volatility: calm, churn: .hot)) < 0)
        #expect(FreshOrder.compare(FreshOrder(volatility: calm, churn: .calm, tail: .reversedHost("x.a.org")),
                                   FreshOrder(volatility: calm, churn: .calm, tail: .reversedHost("a.com"))) > 0, "com.a before org.a.x")
        #expect(FreshOrder.compare(FreshOrder(volatility: calm, churn: .calm, tail: .reversedHost("ads.example.com")),
                                   FreshOrder(volatility: calm, churn: .calm, tail: .reversedHost("b.example.com"))) < 0)
        #expect(FreshOrder.compare(FreshOrder(volatility: calm, churn: .calm, tail: .sites(["a.org", "b.net"])),
                                   FreshOrder(volatility: calm, churn: .calm, tail: .sites(["a.org"]))) > 0)
        #expect(FreshOrder.compare(FreshOrder(volatility: calm, churn: .calm, tail: .sites(["a.org"])),
                                   FreshOrder(volatility: calm, churn: .calm, tail: .sites(["a.org"]))) == 0)
        for _ in 0..<3_000 {
            let lhs = order(), rhs = order()
            let left = Array(lhs.bytes)
            #expect(left == reference(lhs))
            let expected = sign(reference(lhs), reference(rhs))
            #expect(FreshOrder.compare(lhs, rhs) == expected)
            let padded = left + [UInt8](repeating: 0, count: max(0, 32 - left.count))
            let words = (0..<4).map { word in padded[(word * 8)..<(word * 8 + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
            let prefix = lhs.prefix.words
            #expect([prefix.0, prefix.1, prefix.2, prefix.3] == words)
            let prefixOrder = FreshOrder.Prefix.compare(lhs.prefix, rhs.prefix)
            #expect(prefixOrder == 0 || prefixOrder == expected, "a prefix never contradicts the whole key")
        }
    }

    @Test func freshOrderSortsBigFamiliesInHalvesToTheSameOrder() {
        var generator = SeededGenerator(seed: 11)
        // Short hosts from a small alphabet tie often, in the packed prefix and in full.
        func host() -> String {
            String(decoding: (0..<Int(generator.next() % 24)).map { _ in Array("ab.".utf8)[Int(generator.next() % 3)] }, as: UTF8.self)
        }
        for count in [FamilyPlacer.parallelSortMinimum - 1, FamilyPlacer.parallelSortMinimum * 2 + 1] {
            let members = (0..<count).map {
                LayoutMember(key: StableKey(value: UInt64($0)), family: .networkHosts, index: $0,
                             freshOrder: FreshOrder(volatility: UInt8(generator.next() % 2), churn: .calm, tail: .reversedHost(host())))
            }
            let keys = members.map { Array($0.freshOrder.bytes) }
            let expected = members.indices.sorted { lhs, rhs in
                keys[lhs] == keys[rhs] ? lhs < rhs : keys[lhs].lexicographicallyPrecedes(keys[rhs])
            }
            #expect(FamilyPlacer.freshOrder(members) == expected)
        }
    }

    @Test func chunkSizeCountsExceptionsAndSiteExceptions() throws {
        var rules = F.noGuards()
        for index in 0..<95 { rules.network.append(F.path("/p\(index)/")) }
        rules.network.append(F.exception(nil, key: "@@/a/"))
        rules.network.append(F.exception(nil, key: "@@/b/"))
        rules.siteExceptions.append(F.site(.document, "news.example"))
        let result = try F.layout(rules, chunkSize: 20)
        #expect(result.lists.count == 6)  // 95 members, 17 per list
        for list in result.lists {
            #expect(list.rules.count <= 20, "\(list.id) has \(list.rules.count) rules")
            let tail = list.rules.suffix(3).map(F.text)
            #expect(tail[0].contains("@@/a/") && tail[1].contains("@@/b/") && tail[2].contains("news.example"))
        }
        let blocks = result.lists.flatMap { $0.rules }.filter { F.text($0).contains(#""block""#) }
        #expect(blocks.count == 95)
    }

    @Test func exceptionsFollowBlocksAndImportantFollowsExceptions() throws {
        var rules = F.noGuards()
        rules.network = [F.important("a.example"), F.block("a.example"), F.exception("a.example"), F.block("b.example")]
        rules.network.append(F.path("/ad/"))
        let lists = try F.layout(rules).lists
        // Blocks on a host an exception names go to the path list, which carries every exception
        // anyway; the block on an uncontested host stays in a host list, without that exception.
        let paths = try #require(lists.first { $0.family == .networkPaths }).rules.map(F.text)
        #expect(paths == [F.block("a.example"), F.path("/ad/"), F.exception("a.example"), F.important("a.example")].map { F.text($0.json) })
        #expect(lists.first { $0.family == .networkHosts }?.rules.map(F.text) == [F.text(F.block("b.example").json)])
    }

    @Test func anchoredExceptionsArePrunedOnlyWhereProvablyIrrelevant() throws {
        let scope = ExceptionScope(urlHosts: ["ads.example.com", "tracker.org"], pageDomains: [nil, nil])
        func url(_ host: String?) -> Bool { scope.mayCancel(exceptionHost: host, pages: nil) }
        #expect(url("ads.example.com"))
        #expect(url("example.com"))            // parent of a block host
        #expect(url("cdn.ads.example.com"))    // subdomain of a block host
        #expect(url(nil))                      // unanchored: anything
        #expect(!url("other.example.com"))     // sibling
        #expect(!url("xexample.com"))          // not a dot boundary
        #expect(!url("tracker.org.evil.net"))
        #expect(scope.mayCancel(exceptionHost: "ads.example.com", pages: ["news.example"]))  // blocks act on every page
        let open = ExceptionScope(urlHosts: ["a.com", nil], pageDomains: [nil, nil])
        #expect(open.mayCancel(exceptionHost: "unrelated.net", pages: nil))  // a path block can match any host
        let bareLabel = ExceptionScope(urlHosts: ["com"], pageDomains: [nil])
        #expect(bareLabel.mayCancel(exceptionHost: "unrelated.net", pages: nil))
        // Page conditions: rules only on news.example pages.
        let pagedScope = ExceptionScope(urlHosts: [nil], pageDomains: [["news.example"], ["shop.example"]])
        #expect(pagedScope.mayCancel(exceptionHost: nil, pages: nil))                 // exception on every page
        #expect(pagedScope.mayCancel(exceptionHost: nil, pages: ["www.news.example"])) // subdomain page
        // Resource types: popup-only blocks cannot be cancelled by a script-only exception.
        let typed = ExceptionScope(urlHosts: [nil], pageDomains: [nil], resourceTypes: [.popup, .document])
        #expect(!typed.mayCancel(exceptionHost: nil, pages: nil, resourceTypes: [.script, .fetch]))
        #expect(typed.mayCancel(exceptionHost: nil, pages: nil, resourceTypes: .popup))
        #expect(typed.mayCancel(exceptionHost: nil, pages: nil, resourceTypes: nil))
        let untyped = ExceptionScope(urlHosts: [nil], pageDomains: [nil], resourceTypes: [.popup, nil])
        #expect(untyped.mayCancel(exceptionHost: nil, pages: nil, resourceTypes: .script))
        #expect(pagedScope.mayCancel(exceptionHost: nil, pages: ["example"]))          // parent domain
        #expect(!pagedScope.mayCancel(exceptionHost: nil, pages: ["other.example"]))
        #expect(!pagedScope.mayActOnPage(of: ["other.example", "third.example"]))
        #expect(pagedScope.mayActOnPage(of: ["other.example", "shop.example"]))

        var rules = F.noGuards()
        rules.network = [F.block("ads.example.com"), F.block("calm.example.org"), F.path("/banner/"), F.exception("example.com"),
                         F.exception("unrelated.net"), F.exception(nil, key: "@@/ok/")]
        let lists = try F.layout(rules).lists
        let hosts = try #require(lists.first { $0.family == .networkHosts }).rules.map(F.text)
        let paths = try #require(lists.first { $0.family == .networkPaths }).rules.map(F.text)
        // The block on a host an exception names is in the path list, with every exception.
        #expect(hosts.count == 2 && hosts[0].contains("calm.example.org") && hosts[1].contains("@@/ok/"))
        #expect(paths.count == 5 && paths[0].contains("ads.example.com"))

        var paged = F.noGuards()
        let siteException = NetworkRule(key: "@@/x/$domain=other.example", kind: .exception,
                                        json: Array(#"{"trigger":{"url-filter":"x","if-domain":["*other.example"]},"action":{"type":"ignore-previous-rules"}}"#.utf8),
                                        anchorHost: nil, sourceID: "easylist", pageCondition: .only(["other.example"]))
        paged.network = [F.siteBlock("c.example", on: "news.example"), F.path("/ad/"), siteException]
        // The `$genericblock` on news.example keeps the site block in a site list of its own.
        paged.siteExceptions = [F.site(.document, "other.example"), F.site(.document, "www.news.example"),
                                F.site(.genericBlocking, "news.example")]
        let pagedLists = try F.layout(paged).lists
        let sites = try #require(pagedLists.first { $0.family == .networkSites }).rules.map(F.text)
        #expect(sites.count == 2 && sites[1].contains("www.news.example"))
        // The path block, the exception, and the three site exceptions as one rule.
        let pathRules = try #require(pagedLists.first { $0.family == .networkPaths }).rules.map(F.text)
        #expect(pathRules.count == 3)
        #expect(pathRules.last == #"{"trigger":{"url-filter":".*","if-domain":["*other.example","*www.news.example","*news.example"]},"action":{"type":"ignore-previous-rules"}}"#)
    }

    @Test func siteExceptionsEndTheListsTheyMustCancel() throws {
        var rules = F.noGuards()
        rules.network = [F.block("a.example"), F.path("/ad/"), F.siteBlock("c.example", on: "news.example")]
        rules.cosmetic = [F.generic(".ad"), F.onSites(".box", ["news.example"])]
        // All on news.example pages, so the site-specific lists (rules only on news.example) need them too.
        rules.siteExceptions = [F.site(.document, "d.news.example"), F.site(.elementHiding, "e.news.example"),
                                F.site(.genericHiding, "g.news.example"), F.site(.genericBlocking, "news.example")]
        let lists = try F.layout(rules).lists
        func tail(_ family: ListFamily) throws -> [String] {
            try #require(lists.first { $0.family == family }).rules.dropFirst().map(F.text).map {
                String($0.split(separator: "\"").last { $0.hasPrefix("d") || $0.hasPrefix("e") || $0.hasPrefix("g") || $0.hasPrefix("b") } ?? "")
            }
        }
        // A list's site exceptions stand together at its end as one rule (the union of their sites),
        // or as the one exception's own rule; the scopes are read back from the sites.
        let scopeOfSite = ["*d.news.example": "document", "*e.news.example": "elementHiding",
                           "*g.news.example": "genericHiding", "*news.example": "genericBlocking"]
        func scopes(_ family: ListFamily) throws -> [String] {
            let rules = try #require(lists.first { $0.family == family }).rules.map(F.text)
            let siteRules = rules.filter { $0.hasPrefix(#"{"trigger":{"url-filter":".*","if-domain":"#) }
            #expect(siteRules.count == 1 && siteRules.last == rules.last, "\(family)")
            let last = try #require(siteRules.last)
            let object = try #require(JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
            let sites = try #require((object["trigger"] as? [String: Any])?["if-domain"] as? [String])
            return sites.map { scopeOfSite[$0] ?? $0 }
        }
        #expect(try scopes(.networkHosts) == ["document", "genericBlocking"])
        #expect(try scopes(.networkPaths) == ["document", "genericBlocking"])
        #expect(try scopes(.networkSites) == ["document"])
        #expect(try scopes(.cosmeticGeneric) == ["document", "elementHiding", "genericHiding"])
        #expect(try scopes(.cosmeticSites) == ["document", "elementHiding"])
        for list in lists { #expect(F.text(list.rules.last!).contains("ignore-previous-rules")) }
    }

    @Test func navigationGuardsEndListsWithGuardedRulesOnly() throws {
        var rules = ConvertedRules()
        let guards = rules.navigationGuards
        try #require(guards.count == 2)
        func with(_ rule: NetworkRule, _ policy: NavigationPolicy) -> NetworkRule {
            var copy = rule
            copy.navigation = policy
            return copy
        }
        rules.network = [with(F.block("a.example"), .mustNotBeGuarded), with(F.block("hp.example"), .needsGuard),
                         with(F.path("/ad/"), .needsGuard), with(F.path("/popunder."), .mustNotBeGuarded),
                         with(F.siteBlock("c.example", on: "news.example"), .needsGuard),
                         F.exception("x.example"), F.important("b.example")]
        rules.cosmetic = [F.generic(".ad")]
        rules.siteExceptions = [F.site(.document, "news.example")]
        let lists = try F.layout(rules).lists
        // The popup block joins the path list after its guards; the site block, anchored to a host,
        // goes with the host-path blocks, where only exceptions on related hosts reach it.
        #expect(lists.map(\.id) == ["network-hosts-00", "network-host-paths-00", "network-paths-00", "cosmetic-generic-00"])
        #expect(lists[1].rules.map(F.text).first?.contains("c.example") == true)
        for list in lists {
            let expected = [ListFamily.networkHostPaths, .networkPaths].contains(list.family)
            #expect(list.rules.filter { guards.contains($0) }.count == (expected ? 2 : 0), "\(list.id)")
        }
        #expect(Array(lists[1].rules.suffix(2)) == guards)
        let hosts = lists[0].rules.map(F.text)
        #expect(hosts.count == 3 && hosts[0].contains("a.example") && hosts[1].contains("b.example-important") && hosts[2].contains("news.example"))
        // Guarded blocks, the guards, then the block that must keep matching popups, then the exceptions.
        let paths = lists[2].rules
        try #require(paths.count == 6)
        #expect(F.text(paths[0]).contains("/ad/"))
        #expect(Array(paths[1...2]) == guards)
        #expect(F.text(paths[3]).contains("/popunder.") && F.text(paths[4]).contains("x.example") && F.text(paths[5]).contains("news.example"))
    }

    @Test func navigationBlocksKeepTheirOwnListWhenTheyCannotFollowTheGuards() throws {
        var rules = ConvertedRules()
        let guards = rules.navigationGuards
        func with(_ rule: NetworkRule, _ policy: NavigationPolicy) -> NetworkRule {
            var copy = rule
            copy.navigation = policy
            return copy
        }
        // A `$important` block that needs the guards must precede them and follow every exception.
        rules.network = [with(F.path("/ad/"), .needsGuard), with(F.path("/popunder."), .mustNotBeGuarded),
                         with(F.important("i.example"), .needsGuard), F.exception("x.example")]
        var lists = try F.layout(rules).lists
        #expect(lists.map(\.id) == ["network-host-paths-00", "network-paths-00", "network-navigation-00"])
        #expect(lists.first { $0.id == "network-paths-00" }.map { Array($0.rules.suffix(2)) == guards } == true)
        #expect(lists.first { $0.id == "network-navigation-00" }?.rules.map(F.text).first?.contains("/popunder.") == true)
        #expect(lists.first { $0.id == "network-navigation-00" }.map { $0.rules.contains { guards.contains($0) } } == false)

        // A popup block on a page a `$genericblock` acts on keeps its own list (the generic block
        // lists end with that site exception); one on another page joins the path list after the guards.
        func popup(on site: String) -> NetworkRule {
            let json = Array(#"{"trigger":{"url-filter":"pop","resource-type":["popup"],"if-domain":["*\#(site)"]},"action":{"type":"block"}}"#.utf8)
            return NetworkRule(key: "/pop$popup,domain=\(site)", kind: .block, json: json, anchorHost: nil, sourceID: "easylist",
                               navigation: .mustNotBeGuarded, pageCondition: .only([site]), resourceTypes: .popup)
        }
        rules.network = [with(F.path("/ad/"), .needsGuard), popup(on: "news.example"), popup(on: "shop.example")]
        rules.siteExceptions = [F.site(.genericBlocking, "news.example")]
        lists = try F.layout(rules).lists
        #expect(lists.map(\.id) == ["network-paths-00", "network-navigation-00"])
        let paths = lists[0].rules.map(F.text)
        #expect(paths.count == 5 && paths[0].contains("/ad/") && paths[3].contains("shop.example") && paths[4].contains("genericBlocking"))
        #expect(lists[1].rules.map(F.text).first?.contains("news.example") == true)
    }

    @Test func cosmeticGroupingGivesExactJSON() throws {
        var rules = F.noGuards()
        rules.cosmetic = (0..<120).map { F.generic(".g\($0)") }
        rules.cosmetic += [F.onSites(".a", ["a.com", "b.com"]), F.onSites(".b", ["c.com"]), F.onSites(#"a[href="x"]"#, ["a.com", "b.com"]),
                           F.except(".e", ["x.org"]), F.except(".f", ["x.org"])]
        let lists = try F.layout(rules).lists
        #expect(lists.map(\.id) == ["cosmetic-generic-00", "cosmetic-sites-00"])
        let generic = lists[0].rules.map(F.text)
        #expect(generic.count == 4)
        #expect(generic[0] == #"{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":""# + (0..<50).map { ".g\($0)" }.joined(separator: ", ") + #""}}"#)
        #expect(generic[2] == #"{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":""# + (100..<120).map { ".g\($0)" }.joined(separator: ", ") + #""}}"#)
        #expect(generic[3] == #"{"trigger":{"url-filter":".*","unless-domain":["*x.org"]},"action":{"type":"css-display-none","selector":".e, .f"}}"#)
        let sites = lists[1].rules.map(F.text)
        // One rule per site, matched against the document's own URL (the frame's, as in ABP).
        #expect(sites == [
            #"{"trigger":{"url-filter":"^[^:]+://+([^:/]+\\.)?a\\.com[/:]","resource-type":["document"]},"action":{"type":"css-display-none","selector":".a, a[href=\"x\"]"}}"#,
            #"{"trigger":{"url-filter":"^[^:]+://+([^:/]+\\.)?b\\.com[/:]","resource-type":["document"]},"action":{"type":"css-display-none","selector":".a, a[href=\"x\"]"}}"#,
            #"{"trigger":{"url-filter":"^[^:]+://+([^:/]+\\.)?c\\.com[/:]","resource-type":["document"]},"action":{"type":"css-display-none","selector":".b"}}"#,
        ])
        let array = JSONText.array(of: lists[1].rules)
        let parsed = try JSONSerialization.jsonObject(with: Data(array)) as? [[String: Any]]
        #expect(parsed?.count == 3)
    }

    /// A site's hiding rules act in its documents wherever they are framed, so an element-hiding
    /// exception for any page must end the site lists (in WebKit it cancels them in that page's frames).
    @Test func siteHidingListsCarryEveryHidingSiteException() throws {
        var rules = F.noGuards()
        rules.cosmetic = [F.onSites(".box", ["news.example"])]
        rules.siteExceptions = [F.site(.elementHiding, "other.org"), F.site(.genericHiding, "other.org")]
        let lists = try F.layout(rules).lists
        #expect(lists.map(\.id) == ["cosmetic-sites-00"])
        let texts = lists[0].rules.map(F.text)
        #expect(texts.count == 2 && texts[0].contains("news") && texts[0].contains(#""resource-type":["document"]"#)
                && texts[1].contains("other.org") && texts[1].contains("elementHiding"))
    }

    @Test func listCountAndRuleLimitsHold() throws {
        let rules = F.mixed(hosts: 40_000, paths: 3_000, generics: 2_000, sites: 9_000)
        let result = try F.layout(rules)
        #expect(result.lists.count <= 16)
        for list in result.lists { #expect(list.rules.count <= 30_000 && !list.rules.isEmpty) }
        let big = try F.layout(F.mixed(hosts: 200_000, paths: 10, generics: 10, sites: 10), chunkSize: 1_000_000, maxLists: 8)
        // Two lists of at most 150,000 rules; the three lists left are the recent lists' reserve.
        #expect(big.lists.filter { $0.family == .networkHosts }.count == 2)
        for list in big.lists { #expect(list.rules.count <= 150_000) }
        #expect(throws: ConversionError.self) { try F.layout(F.mixed(hosts: 5_000), chunkSize: 1_000, maxLists: 4) }
    }

    @Test func unreadablePreviousStateIsAnActionableError() throws {
        let converter = ListConverter()
        for bad in ["not json", #"{"version":99,"lists":[]}"#, #"{"version":1,"chunkSize":1,"maxLists":1,"selectorsPerRule":1,"lists":[{"id":"x","family":"nope","recent":false,"members":[]}]}"#] {
            do {
                _ = try converter.assemble(F.mixed(hosts: 10, paths: 1, generics: 1, sites: 1), sourceReports: [], previousLayout: Array(bad.utf8))
                Issue.record("accepted \(bad)")
            } catch let error as ConversionError {
                guard case .invalidPreviousLayout = error else { Issue.record("wrong error \(error)"); continue }
                #expect(error.description.contains("remove it"))
            }
        }
    }

    @Test func sectionCommentsGiveEachLineItsChurnClass() {
        let text = "[Adblock Plus 2.0]\r\n##.before-any-section\r\n! *** easylist:easylist/easylist_general_hide.txt ***\r\n##.calm-ad\r\n"
            + "! *** easylist:easylist/easylist_specific_hide.txt ***\r\nnews.example##.hot-ad  \r\n! a plain comment\r\n"
            + "||shared.example^\n! *** easylist:easylist/easylist_adservers.txt ***\n||ads.example^$third-party\n"
            + "||multi.example^$script,subdocument\n"
            + "! *** easylist:easylist_adult/adult_adservers.txt ***\n||adult.example^\n"
            + "! *** easylist:easyprivacy/easyprivacy_specific_international.txt ***\n/intl-tracker."
        let (rules, _, _) = RuleConverter().convert([FilterListSource(id: "easylist", bytes: Array(text.utf8))])
        let network = Dictionary(rules.network.map { ($0.key, $0.churn) }, uniquingKeysWith: { first, _ in first })
        let cosmetic = Dictionary(rules.cosmetic.map { ($0.key, $0.churn) }, uniquingKeysWith: { first, _ in first })
        #expect(cosmetic == ["##.before-any-section": .calm, "##.calm-ad": .calm, "news.example##.hot-ad": .hot])
        #expect(network == [
            "||shared.example^": .hot,  // after a plain comment, still in the hot section
            "||ads.example^$third-party": .warm,
            "||multi.example^$script,subdocument": .warm, "||multi.example^$script,subdocument#1": .warm,
            "||adult.example^": .calm, "/intl-tracker.": .calm,
        ])
        #expect(ChurnClass.of(section: "easylist:easyprivacy/easyprivacy_specific.txt") == .warm)
        #expect(ChurnClass.of(section: "custom rules") == .calm)
        // Where each parallel piece of parsing starts: the class after the lines before it.
        let lines = FilterLineReader.lineRanges(in: Array(text.utf8))
        #expect(SectionChurn.classes(at: [0, 3, 6, 9, lines.count], lines: lines, bytes: Array(text.utf8))
            == [.calm, .calm, .hot, .warm, .calm])
    }

    @Test func freshLayoutPutsHotSectionsFirstAndVolatileMembersInASmallFirstList() throws {
        // Hot-section hosts sort before calm ones, whatever their names.
        var rules = F.noGuards()
        rules.network = (0..<40).map { index in
            var rule = F.block("h\(index).example")
            if index >= 20 { rule.churn = .warm }
            return rule
        }
        let input = LayoutInput(rules)
        let placer = FamilyPlacer(family: .networkHosts, members: input.members[.networkHosts]!, capacity: 100, recentLimit: 10)
        let lists = placer.fresh(stableLists: 2)
        #expect(lists.map(\.members.count) == [20, 20])
        #expect(Set(lists[0].members) == Set(20..<40))

        // Volatile members (in host lists: blocks that must keep matching page loads, on hosts an
        // exception concerns, when they cannot follow a path list's guards) get the first list to themselves…
        var members = input.members[.networkHosts]!
        for index in [3, 33] { members[index].freshOrder.volatility = Volatility.volatile }
        let split = FamilyPlacer(family: .networkHosts, members: members, capacity: 100, recentLimit: 10)
            .fresh(stableLists: 3)
        #expect(split.map(\.members.count) == [2, 19, 19])
        #expect(Set(split[0].members) == [3, 33])
        // …unless the other lists would then outgrow the capacity.
        let tight = FamilyPlacer(family: .networkHosts, members: members, capacity: 14, recentLimit: 10)
            .fresh(stableLists: 3)
        #expect(tight.map(\.members.count) == [14, 13, 13])
    }

    @Test func stateRoundTrips() throws {
        let result = try F.layout(F.mixed())
        let decoded = try LayoutState.decode(result.state.encoded())
        #expect(decoded == result.state)
    }
}
