import Foundation
import TestSupport
import Testing

@testable import Converter

/// Placement for WebKit's semantics: chunk size, exceptions after what they cancel, pruning, site
/// exceptions and navigation guards at the ends of lists.
@Suite struct LayoutTests {
    typealias F = LayoutFixture

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
        rules.network = [
            F.important("a.example"), F.block("a.example"), F.exception("a.example"), F.block("b.example"),
        ]
        rules.network.append(F.path("/ad/"))
        let lists = try F.layout(rules).lists
        // Blocks on a host an exception names go to the path list, which carries every exception
        // anyway; the block on an uncontested host stays in a host list, without that exception.
        let paths = try #require(lists.first { $0.family == .networkPaths }).rules.map(F.text)
        #expect(
            paths
                == [F.block("a.example"), F.path("/ad/"), F.exception("a.example"), F.important("a.example")].map {
                    F.text($0.json)
                })
        #expect(lists.first { $0.family == .networkHosts }?.rules.map(F.text) == [F.text(F.block("b.example").json)])
    }

    @Test func anchoredExceptionsArePrunedOnlyWhereProvablyIrrelevant() throws {
        let scope = ExceptionScope(urlHosts: ["ads.example.com", "tracker.org"], pageDomains: [nil, nil])
        func url(_ host: String?) -> Bool { scope.mayCancel(exceptionHost: host, pages: nil) }
        #expect(url("ads.example.com"))
        #expect(url("example.com"))  // parent of a block host
        #expect(url("cdn.ads.example.com"))  // subdomain of a block host
        #expect(url(nil))  // unanchored: anything
        #expect(!url("other.example.com"))  // sibling
        #expect(!url("xexample.com"))  // not a dot boundary
        #expect(!url("tracker.org.evil.net"))
        #expect(scope.mayCancel(exceptionHost: "ads.example.com", pages: ["news.example"]))  // blocks act on every page
        let open = ExceptionScope(urlHosts: ["a.com", nil], pageDomains: [nil, nil])
        #expect(open.mayCancel(exceptionHost: "unrelated.net", pages: nil))  // a path block can match any host
        let bareLabel = ExceptionScope(urlHosts: ["com"], pageDomains: [nil])
        #expect(bareLabel.mayCancel(exceptionHost: "unrelated.net", pages: nil))
        // Page conditions: rules only on news.example pages.
        let pagedScope = ExceptionScope(urlHosts: [nil], pageDomains: [["news.example"], ["shop.example"]])
        #expect(pagedScope.mayCancel(exceptionHost: nil, pages: nil))  // exception on every page
        #expect(pagedScope.mayCancel(exceptionHost: nil, pages: ["www.news.example"]))  // subdomain page
        // Resource types: popup-only blocks cannot be cancelled by a script-only exception.
        let typed = ExceptionScope(urlHosts: [nil], pageDomains: [nil], resourceTypes: [.popup, .document])
        #expect(!typed.mayCancel(exceptionHost: nil, pages: nil, resourceTypes: [.script, .fetch]))
        #expect(typed.mayCancel(exceptionHost: nil, pages: nil, resourceTypes: .popup))
        #expect(typed.mayCancel(exceptionHost: nil, pages: nil, resourceTypes: nil))
        let untyped = ExceptionScope(urlHosts: [nil], pageDomains: [nil], resourceTypes: [.popup, nil])
        #expect(untyped.mayCancel(exceptionHost: nil, pages: nil, resourceTypes: .script))
        #expect(pagedScope.mayCancel(exceptionHost: nil, pages: ["example"]))  // parent domain
        #expect(!pagedScope.mayCancel(exceptionHost: nil, pages: ["other.example"]))
        #expect(!pagedScope.mayActOnPage(of: ["other.example", "third.example"]))
        #expect(pagedScope.mayActOnPage(of: ["other.example", "shop.example"]))

        var rules = F.noGuards()
        rules.network = [
            F.block("ads.example.com"), F.block("calm.example.org"), F.path("/banner/"), F.exception("example.com"),
            F.exception("unrelated.net"), F.exception(nil, key: "@@/ok/"),
        ]
        let lists = try F.layout(rules).lists
        let hosts = try #require(lists.first { $0.family == .networkHosts }).rules.map(F.text)
        let paths = try #require(lists.first { $0.family == .networkPaths }).rules.map(F.text)
        // The block on a host an exception names is in the path list, with every exception.
        #expect(hosts.count == 2 && hosts[0].contains("calm.example.org") && hosts[1].contains("@@/ok/"))
        #expect(paths.count == 5 && paths[0].contains("ads.example.com"))

        var paged = F.noGuards()
        let siteException = NetworkRule(
            key: "@@/x/$domain=other.example", kind: .exception,
            json: Array(
                #"{"trigger":{"url-filter":"x","if-domain":["*other.example"]},"action":{"type":"ignore-previous-rules"}}"#
                    .utf8),
            anchorHost: nil, sourceID: "easylist", pageCondition: .only(["other.example"]))
        paged.network = [F.siteBlock("c.example", on: "news.example"), F.path("/ad/"), siteException]
        // The `$genericblock` on news.example keeps the site block in a site list of its own.
        paged.siteExceptions = [
            F.site(.document, "other.example"), F.site(.document, "www.news.example"),
            F.site(.genericBlocking, "news.example"),
        ]
        let pagedLists = try F.layout(paged).lists
        let sites = try #require(pagedLists.first { $0.family == .networkSites }).rules.map(F.text)
        #expect(sites.count == 2 && sites[1].contains("www.news.example"))
        // The path block, the exception, and the three site exceptions as one rule.
        let pathRules = try #require(pagedLists.first { $0.family == .networkPaths }).rules.map(F.text)
        #expect(pathRules.count == 3)
        #expect(
            pathRules.last
                == #"{"trigger":{"url-filter":".*","if-domain":["*other.example","*www.news.example","*news.example"]},"action":{"type":"ignore-previous-rules"}}"#
        )
    }

    @Test func siteExceptionsEndTheListsTheyMustCancel() throws {
        var rules = F.noGuards()
        rules.network = [F.block("a.example"), F.path("/ad/"), F.siteBlock("c.example", on: "news.example")]
        rules.cosmetic = [F.generic(".ad"), F.onSites(".box", ["news.example"])]
        // All on news.example pages, so the site-specific lists (rules only on news.example) need them too.
        rules.siteExceptions = [
            F.site(.document, "d.news.example"), F.site(.elementHiding, "e.news.example"),
            F.site(.genericHiding, "g.news.example"), F.site(.genericBlocking, "news.example"),
        ]
        let lists = try F.layout(rules).lists
        func tail(_ family: ListFamily) throws -> [String] {
            try #require(lists.first { $0.family == family }).rules.dropFirst().map(F.text).map {
                String(
                    $0.split(separator: "\"").last {
                        $0.hasPrefix("d") || $0.hasPrefix("e") || $0.hasPrefix("g") || $0.hasPrefix("b")
                    } ?? "")
            }
        }
        // A list's site exceptions stand together at its end as one rule (the union of their sites),
        // or as the one exception's own rule; the scopes are read back from the sites.
        let scopeOfSite = [
            "*d.news.example": "document", "*e.news.example": "elementHiding",
            "*g.news.example": "genericHiding", "*news.example": "genericBlocking",
        ]
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
        rules.network = [
            with(F.block("a.example"), .mustNotBeGuarded), with(F.block("hp.example"), .needsGuard),
            with(F.path("/ad/"), .needsGuard), with(F.path("/popunder."), .mustNotBeGuarded),
            with(F.siteBlock("c.example", on: "news.example"), .needsGuard),
            F.exception("x.example"), F.important("b.example"),
        ]
        rules.cosmetic = [F.generic(".ad")]
        rules.siteExceptions = [F.site(.document, "news.example")]
        let lists = try F.layout(rules).lists
        // The popup block joins the path list after its guards; the site block, anchored to a host,
        // goes with the host-path blocks, where only exceptions on related hosts reach it.
        #expect(
            lists.map(\.id) == ["network-hosts-00", "network-host-paths-00", "network-paths-00", "cosmetic-generic-00"])
        #expect(lists[1].rules.map(F.text).first?.contains("c.example") == true)
        for list in lists {
            let expected = [ListFamily.networkHostPaths, .networkPaths].contains(list.family)
            #expect(list.rules.filter { guards.contains($0) }.count == (expected ? 2 : 0), "\(list.id)")
        }
        #expect(Array(lists[1].rules.suffix(2)) == guards)
        let hosts = lists[0].rules.map(F.text)
        #expect(
            hosts.count == 3 && hosts[0].contains("a.example") && hosts[1].contains("b.example-important")
                && hosts[2].contains("news.example"))
        // Guarded blocks, the guards, then the block that must keep matching popups, then the exceptions.
        let paths = lists[2].rules
        try #require(paths.count == 6)
        #expect(F.text(paths[0]).contains("/ad/"))
        #expect(Array(paths[1...2]) == guards)
        #expect(
            F.text(paths[3]).contains("/popunder.") && F.text(paths[4]).contains("x.example")
                && F.text(paths[5]).contains("news.example"))
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
        rules.network = [
            with(F.path("/ad/"), .needsGuard), with(F.path("/popunder."), .mustNotBeGuarded),
            with(F.important("i.example"), .needsGuard), F.exception("x.example"),
        ]
        var lists = try F.layout(rules).lists
        #expect(lists.map(\.id) == ["network-host-paths-00", "network-paths-00", "network-navigation-00"])
        #expect(lists.first { $0.id == "network-paths-00" }.map { Array($0.rules.suffix(2)) == guards } == true)
        #expect(
            lists.first { $0.id == "network-navigation-00" }?.rules.map(F.text).first?.contains("/popunder.") == true)
        #expect(
            lists.first { $0.id == "network-navigation-00" }.map { $0.rules.contains { guards.contains($0) } } == false)

        // A popup block on a page a `$genericblock` acts on keeps its own list (the generic block
        // lists end with that site exception); one on another page joins the path list after the guards.
        func popup(on site: String) -> NetworkRule {
            let json = Array(
                #"{"trigger":{"url-filter":"pop","resource-type":["popup"],"if-domain":["*\#(site)"]},"action":{"type":"block"}}"#
                    .utf8)
            return NetworkRule(
                key: "/pop$popup,domain=\(site)", kind: .block, json: json, anchorHost: nil, sourceID: "easylist",
                navigation: .mustNotBeGuarded, pageCondition: .only([site]), resourceTypes: .popup)
        }
        rules.network = [with(F.path("/ad/"), .needsGuard), popup(on: "news.example"), popup(on: "shop.example")]
        rules.siteExceptions = [F.site(.genericBlocking, "news.example")]
        lists = try F.layout(rules).lists
        #expect(lists.map(\.id) == ["network-paths-00", "network-navigation-00"])
        let paths = lists[0].rules.map(F.text)
        #expect(
            paths.count == 5 && paths[0].contains("/ad/") && paths[3].contains("shop.example")
                && paths[4].contains("genericBlocking"))
        #expect(lists[1].rules.map(F.text).first?.contains("news.example") == true)
    }
}
