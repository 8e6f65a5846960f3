import Foundation
import PublicSuffix
import Testing

@testable import Converter

/// Hiding rules of entity domains (`amazon.*##sel`) on `safari-26`: the entity's hosts named by
/// document url-filters built from the Public Suffix List, exactly the hosts ABP's entity matching
/// gives under one-label suffixes and under the `co`/`com` country-code suffixes, never another.
@Suite struct EntityHidingTargetTests {
    /// A small list with each kind of rule the encoding depends on.
    static let suffixes = PublicSuffixList(
        text: """
            // ===BEGIN ICANN DOMAINS===
            com
            de
            uk
            co.uk
            au
            com.au
            jp
            co.jp
            ne.jp
            ck
            *.ck
            !www.ck
            // ===END ICANN DOMAINS===
            // ===BEGIN PRIVATE DOMAINS===
            io
            github.io
            co.com
            // ===END PRIVATE DOMAINS===
            """)
    static let host = #"^[^:]+://+([^:/]+\\.)?"#

    private func lists(_ text: String, _ target: ConversionTarget, suffixes: PublicSuffixList? = suffixes) throws
        -> ConversionOutput
    {
        var configuration = ConverterConfiguration()
        configuration.target = target
        configuration.publicSuffixes = suffixes
        return try ListConverter(configuration: configuration).convert([
            FilterListSource(id: "test", bytes: Array(text.utf8))
        ])
    }

    /// The url-filters of the cosmetic lists' rules, in list order.
    private func hidingFilters(_ output: ConversionOutput) throws -> [String] {
        try output.lists.filter { $0.id.hasPrefix("cosmetic") }.flatMap { list in
            let rules = try #require(try JSONSerialization.jsonObject(with: Data(list.json)) as? [[String: Any]])
            return rules.compactMap { ($0["trigger"] as? [String: Any])?["url-filter"] as? String }
        }
    }

    private func hide(_ suffix: String, _ selector: String) -> String {
        #"{"trigger":{"url-filter":"\#(Self.host)amazon\\.\#(suffix)[/:]","resource-type":["document"]},"action":{"type":"css-display-none","selector":"\#(selector)"}}"#
    }

    @Test func safari26NamesTheEntityHostsExactly() throws {
        let output = try lists("amazon.*##.x", .safari26)
        let json = String(
            decoding: try #require(output.lists.first { $0.id.hasPrefix("cosmetic-sites") }).json, as: UTF8.self)
        let expected = [
            #"[^./:]([^./:][^./:]+)?"#, #"[^c./:][^./:]"#, #"c[^k./:]"#,
            #"co\\.jp"#, #"co\\.uk"#, #"com\\.au"#,
        ].map { hide($0, ".x") }
        #expect(json == "[\n" + expected.joined(separator: ",\n") + "\n]\n")
        #expect(output.report.sources[0].skipped.isEmpty)
    }

    @Test func safari17AndSafari26WithoutTheListSkipTheLine() throws {
        for output in [
            try lists("amazon.*##.x\n##.g", .safari17), try lists("amazon.*##.x\n##.g", .safari26, suffixes: nil),
        ] {
            #expect(output.report.sources[0].skipped["entity-domain"]?.count == 1)
            #expect(try hidingFilters(output) == [".*"])
        }
    }

    @Test func plainAndEntitySitesShareTheSelector() throws {
        let filters = try hidingFilters(try lists("b.example,github.*##.g", .safari26))
        #expect(
            filters == [
                #"^[^:]+://+([^:/]+\.)?b\.example[/:]"#,
                // github.io is a public suffix: no github.io host is github.* in ABP's sense.
                #"^[^:]+://+([^:/]+\.)?github\.[^./:]([^./:][^./:]+)?[/:]"#,
                #"^[^:]+://+([^:/]+\.)?github\.[^ci./:][^./:][/:]"#,
                #"^[^:]+://+([^:/]+\.)?github\.c[^k./:][/:]"#,
                #"^[^:]+://+([^:/]+\.)?github\.i[^o./:][/:]"#,
                #"^[^:]+://+([^:/]+\.)?github\.co\.jp[/:]"#,
                #"^[^:]+://+([^:/]+\.)?github\.co\.uk[/:]"#,
                #"^[^:]+://+([^:/]+\.)?github\.com\.au[/:]"#,
            ])
    }

    /// A site exception of the selector could fall on the entity's hosts: the entity is left out.
    @Test func aSiteExceptionOfTheSelectorLeavesTheEntityOut() throws {
        let filters = try hidingFilters(try lists("b.example,amazon.*##.x\namazon.de#@#.x", .safari26))
        #expect(filters == [#"^[^:]+://+([^:/]+\.)?b\.example[/:]"#])
        let excluded = try lists("amazon.*,~www.amazon.de##.x\n##.g", .safari26)
        #expect(try hidingFilters(excluded) == [".*"])
    }

    /// Every host the filters match is one where adblock-rust's entity matching (the host without
    /// its public suffix ends in the name) hides, and every such host under a one-label or a
    /// `co`/`com` country-code suffix is matched: the filters checked as regexes against hosts.
    /// Under other suffixes (`ne.jp`, the private `co.com`) and on a host that is itself a public
    /// suffix (`github.io`), the filters hide less than ABP.
    @Test func theFiltersMatchExactlyTheEntityHosts() throws {
        let suffixes = Self.suffixes
        let entity = EntityDomainFilters(publicSuffixes: suffixes)
        for name in ["amazon", "www.google", "github"] {
            let regexes = try entity.filters(name: name).map {
                try NSRegularExpression(pattern: String(decoding: $0, as: UTF8.self))
            }
            func matched(_ host: String) -> Bool {
                let url = "https://\(host)/p"
                return regexes.contains { $0.firstMatch(in: url, range: NSRange(url.startIndex..., in: url)) != nil }
            }
            let exact = [
                "\(name).de", "www.\(name).de", "a.b.\(name).com", "\(name).co.uk", "x.\(name).com.au",
                "\(name).co.jp", "\(name).evil.example", "\(name).de.evil.example", "www.\(name).ck", "\(name).c",
                "\(name).ckx", "x.\(name).io", "\(name)x.de", "x\(name).de", "\(name).uk.co", "\(name).com.de",
            ]
            for host in exact { #expect(matched(host) == abpHides(name, on: host, suffixes), "\(name).* on \(host)") }
            for host in ["\(name).ne.jp", "\(name).co.com"] + (name == "github" ? ["github.io"] : []) {
                #expect(abpHides(name, on: host, suffixes) && !matched(host), "\(name).* on \(host)")
            }
        }
    }

    /// adblock-rust's entity matching, on hosts that are not public suffixes themselves.
    private func abpHides(_ name: String, on host: String, _ suffixes: PublicSuffixList) -> Bool {
        let registrable = suffixes.registrableDomain(of: host)
        let suffix = registrable.split(separator: ".", maxSplits: 1).last.map(String.init) ?? ""
        let withoutSuffix = host.dropLast(suffix.count + 1)
        return withoutSuffix == name || withoutSuffix.hasSuffix("." + name)
    }

    /// The label regexes match every label over a small alphabet, up to five characters, except
    /// the excluded ones: labels of one length (the wildcard country codes) and of mixed lengths.
    @Test(arguments: [["ck"], ["ck", "bd", "cd"], ["c", "ck", "abc"], ["abc"], ["k"]])
    func labelPatternsLeaveOutExactlyTheExcludedLabels(_ excluded: [String]) throws {
        let patterns = try #require(EntityDomainFilters.labelPatterns(excluding: Set(excluded)))
        let regexes = try patterns.map { try NSRegularExpression(pattern: "^" + $0 + "$") }
        var labels = [""]
        for _ in 1...5 {
            labels += labels.filter { $0.count == labels.last!.count }.flatMap { l in
                ["a", "b", "c", "d", "k"].map { l + $0 }
            }
        }
        for label in Set(labels) where !label.isEmpty {
            let matches = regexes.filter {
                $0.firstMatch(in: label, range: NSRange(label.startIndex..., in: label)) != nil
            }
            #expect(matches.count == (excluded.contains(label) ? 0 : 1), "\(label) against \(patterns)")
        }
    }

    /// A rule below one country-code suffix (`shop.co.uk`) takes that suffix from the names it
    /// reaches into (`shop`, `www.shop`) and from no other, not even one that ends alike (`myshop`).
    @Test func aSuffixReachingIntoANameTakesItsCountryCodeFromThatNameOnly() {
        let suffixes = PublicSuffixList(
            text: """
                // ===BEGIN ICANN DOMAINS===
                uk
                co.uk
                au
                com.au
                // ===END ICANN DOMAINS===
                shop.co.uk
                """)
        let entity = EntityDomainFilters(publicSuffixes: suffixes)
        func names(_ name: String, _ suffix: String) -> Bool {
            let escaped = (name + "." + suffix).replacingOccurrences(of: ".", with: #"\."#)
            return entity.filters(name: name).contains { String(decoding: $0, as: UTF8.self).contains(escaped) }
        }
        for name in ["shop", "www.shop"] {
            #expect(!names(name, "co.uk"), "\(name)")
            #expect(names(name, "com.au"), "\(name)")
        }
        for name in ["myshop", "amazon", "shop.x"] {
            #expect(names(name, "co.uk"), "\(name)")
            #expect(names(name, "com.au"), "\(name)")
        }
    }

    @Test func publicSuffixesSayWhereANameHoldsASuffix() {
        let suffixes = Self.suffixes
        let reach = SuffixReach(suffixes)
        #expect(reach.lastLabels(reachingInto: "amazon") == ["ck"])
        #expect(reach.lastLabels(reachingInto: "github") == ["ck", "io"])
        #expect(reach.reaches(into: "co", below: "com"))
        #expect(!reach.reaches(into: "amazon", below: "co.uk"))
        #expect(suffixes.countryCodeSuffixes(firstLabels: ["co", "com"]) == ["co.jp", "co.uk", "com.au"])
    }
}
