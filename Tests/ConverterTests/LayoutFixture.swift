import Foundation
import TestSupport
import Testing

@testable import Converter

/// Hand-built layout inputs shared by the layout, stability and determinism tests.
enum LayoutFixture {
    static func block(_ host: String, source: String = "easylist") -> NetworkRule {
        NetworkRule(
            key: "||\(host)^", kind: .block, json: json(filter: host, action: "block"), anchorHost: host,
            sourceID: source)
    }

    static func path(_ text: String, source: String = "easylist") -> NetworkRule {
        NetworkRule(
            key: text, kind: .block, json: json(filter: text, action: "block"), anchorHost: nil, sourceID: source)
    }

    static func siteBlock(_ host: String, on site: String) -> NetworkRule {
        let json = Array(
            #"{"trigger":{"url-filter":"\#(host)","if-domain":["*\#(site)"]},"action":{"type":"block"}}"#.utf8)
        return NetworkRule(
            key: "||\(host)^$domain=\(site)", kind: .block, json: json, anchorHost: host, sourceID: "easylist",
            pageCondition: .only([site]))
    }

    static func exception(_ host: String?, key: String? = nil) -> NetworkRule {
        let text = key ?? "@@||\(host ?? "any")^"
        return NetworkRule(
            key: text, kind: .exception, json: json(filter: host ?? text, action: "ignore-previous-rules"),
            anchorHost: host, sourceID: "easylist")
    }

    static func important(_ host: String) -> NetworkRule {
        NetworkRule(
            key: "||\(host)^$important", kind: .importantBlock,
            json: json(filter: host + "-important", action: "block"),
            anchorHost: host, sourceID: "easylist")
    }

    static func site(_ scope: SiteException.Scope, _ host: String) -> SiteException {
        let json = Array(
            #"{"trigger":{"url-filter":".*","if-domain":["*\#(host)"]},"action":{"type":"ignore-previous-rules"},"scope":"\#(scope)"}"#
                .utf8)
        return SiteException(
            key: "@@||\(host)^$\(scope)", scope: scope, json: json, sourceID: "easylist", pages: [host])
    }

    static func generic(_ selector: String) -> CosmeticSelector {
        CosmeticSelector(key: "##" + selector, selector: selector, domains: .everywhere, sourceID: "easylist")
    }

    static func onSites(_ selector: String, _ domains: [String]) -> CosmeticSelector {
        CosmeticSelector(
            key: domains.joined(separator: ",") + "##" + selector, selector: selector, domains: .only(domains),
            sourceID: "easylist")
    }

    static func except(_ selector: String, _ domains: [String]) -> CosmeticSelector {
        CosmeticSelector(
            key: "##" + selector + "~" + domains.joined(separator: ","), selector: selector, domains: .except(domains),
            sourceID: "easylist")
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

    static func layout(
        _ rules: ConvertedRules, chunkSize: Int = 30_000, maxLists: Int = 16, recentLimit: Int = 2_000,
        previous: LayoutState? = nil
    ) throws -> ListLayout.Result {
        let configuration = ConverterConfiguration(
            chunkSize: chunkSize, maxLists: maxLists, recentListLimit: recentLimit)
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
