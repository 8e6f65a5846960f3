import Foundation
import PublicSuffix
import TestSupport
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

    /// The entity's rules come first in their list, then the carve-outs, then the plain site rules,
    /// which the carve-outs must not cancel.
    @Test func safari26NamesTheEntityHostsExactly() throws {
        let output = try lists("amazon.*##.x\nb.example##.y", .safari26)
        func json(_ id: String) throws -> String {
            String(decoding: try #require(output.lists.first { $0.id == id }).json, as: UTF8.self)
        }
        // The entity's two filters, then the carve-outs: below the wildcard `*.ck`, and under the
        // `co.cc` and `com.cc` not listed.
        let carveOuts = [
            #"[^./:]+\\.[^./:]+\\.ck"#, #"[^./:]+\\.co\\.[^ju./:][^./:]"#, #"[^./:]+\\.co\\.j[^p./:]"#,
            #"[^./:]+\\.co\\.u[^k./:]"#, #"[^./:]+\\.com\\.[^a./:][^./:]"#, #"[^./:]+\\.com\\.a[^u./:]"#,
        ].map {
            #"{"trigger":{"url-filter":"\#(Self.host)\#($0)[/:]","resource-type":["document"]},"action":{"type":"ignore-previous-rules"}}"#
        }
        let plain =
            #"{"trigger":{"url-filter":"\#(Self.host)b\\.example[/:]","resource-type":["document"]},"action":{"type":"css-display-none","selector":".y"}}"#
        let expected = [hide("[^./:]+", ".x"), hide(#"com?\\.[^./:][^./:]"#, ".x")] + carveOuts + [plain]
        #expect(try json("cosmetic-sites-00") == "[\n" + expected.joined(separator: ",\n") + "\n]\n")
        #expect(output.report.sources[0].skipped.isEmpty)
    }

    /// A site exception of the hiding scopes ends the list after the carve-outs, and cancels the
    /// entity's rules as every other rule of the list.
    @Test func theSiteExceptionsFollowTheCarveOuts() throws {
        let output = try lists("amazon.*##.x\n@@||news.example^$elemhide", .safari26)
        let list = try #require(output.lists.first { $0.id == "cosmetic-sites-00" })
        let rules = try #require(try JSONSerialization.jsonObject(with: Data(list.json)) as? [[String: Any]])
        let last = try #require(rules.last)
        #expect((last["action"] as? [String: Any])?["type"] as? String == "ignore-previous-rules")
        #expect((last["trigger"] as? [String: Any])?["if-domain"] as? [String] == ["*news.example"])
        #expect(rules.count == 9)
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
                #"^[^:]+://+([^:/]+\.)?github\.[^./:]+[/:]"#,
                #"^[^:]+://+([^:/]+\.)?github\.com?\.[^./:][^./:][/:]"#,
                #"^[^:]+://+([^:/]+\.)?[^./:]+\.[^./:]+\.ck[/:]"#,
                #"^[^:]+://+([^:/]+\.)?[^./:]+\.co\.[^ju./:][^./:][/:]"#,
                #"^[^:]+://+([^:/]+\.)?[^./:]+\.co\.j[^p./:][/:]"#,
                #"^[^:]+://+([^:/]+\.)?[^./:]+\.co\.u[^k./:][/:]"#,
                #"^[^:]+://+([^:/]+\.)?[^./:]+\.com\.[^a./:][^./:][/:]"#,
                #"^[^:]+://+([^:/]+\.)?[^./:]+\.com\.a[^u./:][/:]"#,
                // github.io is a public suffix: no github.io host is github.* in ABP's sense.
                #"^[^:]+://+([^:/]+\.)?github\.io[/:]"#,
                #"^[^:]+://+([^:/]+\.)?b\.example[/:]"#,
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
    /// Under other suffixes (`ne.jp`, the private `co.com`) and on `github.io`, a public suffix the
    /// name reaches, the filters hide less than ABP; on `amazon.ck`, a public suffix under a
    /// wildcard, they hide as adblock-rust does.
    @Test func theFiltersMatchExactlyTheEntityHosts() throws {
        let suffixes = Self.suffixes
        let entity = EntityDomainFilters(publicSuffixes: suffixes)
        for name in ["amazon", "www.google", "github"] {
            let entityMatch = try EntityMatch(entity, name: name)
            func matched(_ host: String) -> Bool { entityMatch.hides(on: host) }
            let exact = [
                "\(name).de", "www.\(name).de", "a.b.\(name).com", "\(name).co.uk", "x.\(name).com.au",
                "\(name).co.jp", "\(name).evil.example", "\(name).de.evil.example", "www.\(name).ck", "\(name).c",
                "\(name).ck", "a.b.\(name).ck",
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

    /// Over every rule of Debian's Public Suffix List (a wildcard's `*` as a label, an exception
    /// as its name), every `co.cc` and `com.cc`, and random hosts made of the list's labels and the names: the filters
    /// never hide where ABP's entity matching does not, and hide wherever it does under a one-label
    /// suffix or a listed `co`/`com` country-code suffix, except on public suffixes the name reaches
    /// and, for a name that ends in `co` (no entity of the lists does), on hosts the carve-outs take.
    @Test func theFiltersAgreeWithTheListOnEveryRuleAndRandomHosts() throws {
        let text = try String(contentsOfFile: PublicSuffixFile.defaultPath, encoding: .utf8)
        let suffixes = try PublicSuffixFile.load()
        let rules = text.split(whereSeparator: \.isNewline).compactMap { line -> String? in
            guard let word = line.split(separator: " ").first, !word.hasPrefix("//"),
                word.utf8.allSatisfy({ $0 < 0x80 })
            else { return nil }
            return word.lowercased().replacingOccurrences(of: "*", with: "zz").replacingOccurrences(of: "!", with: "")
        }
        let ruleSet = Set(rules)
        let listed = Set(suffixes.countryCodeSuffixes(firstLabels: EntityDomainFilters.commercialLabels))
        let entity = EntityDomainFilters(publicSuffixes: suffixes)
        let names = ["amazon", "www.google", "co"]
        let listedFirstLabels = EntityDomainFilters.commercialLabels
        let matches = try names.map { try EntityMatch(entity, name: $0) }
        var generator = SeededGenerator(seed: 28)
        let labels = Array(Set(rules.flatMap { $0.split(separator: ".").map(String.init) })).sorted()
        var checked = 0
        func check(_ host: String, _ index: Int) {
            let name = names[index]
            let hides = matches[index].hides(on: host)
            let abp = abpHides(name, on: host, suffixes)
            #expect(!hides || abp, "\(name).* hides on \(host)")
            let registrable = suffixes.registrableDomain(of: host)
            let suffix = String(registrable.split(separator: ".", maxSplits: 1).last ?? "")
            let named = !suffix.contains(".") || listed.contains(suffix)
            // A name whose last label is `co` or `com` loses its hosts under `co.cc` to the carve-outs.
            let carvedOut = name.split(separator: ".").last.map { listedFirstLabels.contains(String($0)) } ?? false
            if abp, named, !ruleSet.contains(registrable), !carvedOut {
                #expect(hides, "\(name).* misses \(host)")
            }
            checked += 1
        }
        for rule in rules {
            for index in names.indices {
                check(names[index] + "." + rule, index)
                check("www." + names[index] + "." + rule, index)
            }
        }
        // Every two-character code after each commercial label, listed or not.
        let characters = "abcdefghijklmnopqrstuvwxyz0123456789".map(String.init)
        let codes = characters.flatMap { first in characters.map { first + $0 } }
        for first in listedFirstLabels.sorted() {
            for code in codes {
                for index in names.indices {
                    check(names[index] + "." + first + "." + code, index)
                    check("www." + names[index] + "." + first + "." + code, index)
                }
            }
        }
        for _ in 0..<4_000 {
            let index = Int.random(in: names.indices, using: &generator)
            var parts = (0..<Int.random(in: 0...2, using: &generator)).map { _ in
                labels.randomElement(using: &generator)!
            }
            parts.append(names[index])
            parts += (0..<Int.random(in: 1...3, using: &generator)).map { _ in labels.randomElement(using: &generator)!
            }
            check(parts.joined(separator: "."), index)
        }
        #expect(checked == (rules.count + listedFirstLabels.count * codes.count) * names.count * 2 + 4_000)
    }

    /// A rule below one country-code suffix (`shop.co.uk`) takes that suffix from the names it
    /// reaches into (`shop`, `www.shop`) and from no other, not even one that ends alike (`myshop`).
    @Test func aSuffixReachingIntoANameTakesItsCountryCodeFromThatNameOnly() throws {
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
        func hides(_ name: String, on host: String) throws -> Bool {
            try EntityMatch(entity, name: name).hides(on: host)
        }
        for name in ["shop", "www.shop"] {
            #expect(try !hides(name, on: "\(name).co.uk"), "\(name)")
            #expect(try hides(name, on: "\(name).com.au"), "\(name)")
        }
        for name in ["myshop", "amazon", "shop.x"] {
            #expect(try hides(name, on: "\(name).co.uk"), "\(name)")
            #expect(try hides(name, on: "\(name).com.au"), "\(name)")
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

/// What WebKit does with an entity's rules in its list: a filter hides unless a carve-out after
/// it matches the document.
private struct EntityMatch {
    let filters: [NSRegularExpression]
    let carveOuts: [NSRegularExpression]

    init(_ entity: EntityDomainFilters, name: String) throws {
        func regex(_ bytes: [UInt8]) throws -> NSRegularExpression {
            try NSRegularExpression(pattern: String(decoding: bytes, as: UTF8.self))
        }
        filters = try entity.filters(name: name).map(regex)
        carveOuts = try entity.carveOuts(names: [name]).map(regex)
    }

    func hides(on host: String) -> Bool {
        let url = "https://\(host)/p"
        func matches(_ regex: NSRegularExpression) -> Bool {
            regex.firstMatch(in: url, range: NSRange(url.startIndex..., in: url)) != nil
        }
        return filters.contains(where: matches) && !carveOuts.contains(where: matches)
    }
}
