import JSONBytes

/// Turns one list's selectors into `css-display-none` rules.
///
/// Generic selectors are joined `perRule` at a time (few rules compile fast), and generic selectors
/// with `#@#` exceptions are grouped by identical excluded set (`unless-domain`). Site selectors are
/// grouped by site, one rule per site (split every `perRule` selectors), whose trigger matches the
/// document's own URL: `url-filter` `||site^` with `resource-type: ["document"]`. That is ABP's
/// meaning (hiding follows the frame's domain, so a site's iframe is covered on any page, and
/// another site's iframe on the site is not), and it compiles in about 0.7× the CPU time of one
/// rule per domain set with `if-domain`, though it makes more rules (2025-10 site lists: 8,428
/// rules against 5,162, compiled alternately in real WebKit; `scripts/webkit/hiding_check.py`
/// shows what each form hides). Groups follow list order,
/// and list order keeps survivors in place and appends newcomers, so a new selector lands in the
/// last group of its kind instead of reshuffling the others.
///
/// An entity site (`amazon.*`, kept only for targets that name entity domains) is a group of its
/// own too, with one rule per url-filter of `EntityDomainFilters`, all with the same selectors.
/// The entity groups come before the plain site groups, followed by the carve-outs
/// (`ignore-previous-rules`) of the hosts their filters name beyond the entities, so that a
/// carve-out cancels entity rules only.
struct CosmeticRuleBuilder: Sendable {
    var perRule: Int
    var entityFilters: EntityDomainFilters? = nil

    /// Rules for `selectors` (in list order): everywhere groups, then `unless-domain`, then site
    /// groups; with the input lines of each rule (`origins` by selector, nil when unknown).
    func rules(_ selectors: [CosmeticSelector], origins: [LineOrigin?] = []) -> ([[UInt8]], ListOrigins) {
        var everywhere: [SourcedSelector] = []
        var except = DomainGroups()
        var sites = DomainGroups()
        for (index, selector) in selectors.enumerated() {
            let sourced = SourcedSelector(
                selector: selector.selector, origin: index < origins.count ? origins[index] : nil)
            switch selector.domains {
            case .everywhere: everywhere.append(sourced)
            case .except(let domains): except.add(sourced, domains: domains)
            case .only(let domains):
                for domain in domains { sites.add(sourced, domains: [domain]) }
            }
        }
        var out: [[UInt8]] = []
        var lines = ListOrigins()
        func close(_ chunk: ArraySlice<SourcedSelector>) { lines.closeRule(joining: chunk.lazy.compactMap(\.origin)) }
        for chunk in chunks(everywhere) {
            out.append(rule(selectors: chunk, condition: nil, domains: []))
            close(chunk)
        }
        for (domains, group) in except.groups {
            for chunk in chunks(group) {
                out.append(rule(selectors: chunk, condition: "unless-domain", domains: domains))
                close(chunk)
            }
        }
        if let entityFilters {
            let entities = sites.groups.compactMap { domains, group in
                EntityDomains.name(ofSite: domains[0]).map { (name: $0, chunks: chunks(group)) }
            }
            for entity in entities {
                // Every filter repeats the same selectors: their JSON is written once per chunk.
                let actions = entity.chunks.map(action)
                for filter in entityFilters.filters(name: entity.name) {
                    for (chunk, action) in zip(entity.chunks, actions) {
                        out.append(rule(documentFilter: filter, action: action))
                        close(chunk)
                    }
                }
            }
            // A carve-out cancels every earlier rule of the list: only the entity rules precede them, as
            // site selectors fill lists of their own (`ListFamily.cosmeticSites`).
            for filter in entityFilters.carveOuts(names: entities.map(\.name)) {
                out.append(Self.carveOut(documentFilter: filter))
                lines.closeRule(nil)
            }
        }
        for (domains, group) in sites.groups {
            if EntityDomains.name(ofSite: domains[0]) != nil { continue }
            let documentFilter = CosmeticRuleBuilder.documentFilter(site: domains[0])
            for chunk in chunks(group) {
                if let documentFilter {
                    out.append(rule(selectors: chunk, documentFilter: documentFilter))
                } else {
                    out.append(rule(selectors: chunk, condition: "if-domain", domains: domains))
                }
                close(chunk)
            }
        }
        return (out, lines)
    }

    /// The url-filter of `||site^`: the site's documents and its subdomains' (nil if the site
    /// name has no such filter, which never happens for a normalized domain; the rule then keeps
    /// `if-domain`, which is exact for top-level pages).
    static func documentFilter(site: String) -> [UInt8]? {
        guard case .success(let filter) = URLFilterBuilder.build(pattern: ArraySlice(Array(("||" + site + "^").utf8))),
            filter.variants.count == 1, filter.anchorHost == site
        else { return nil }
        return filter.variants[0]
    }

    private func chunks(_ selectors: [SourcedSelector]) -> [ArraySlice<SourcedSelector>] {
        stride(from: 0, to: selectors.count, by: max(1, perRule)).map {
            selectors[$0..<min($0 + max(1, perRule), selectors.count)]
        }
    }

    /// A rule for every page, or with `condition` (`if-domain`, `unless-domain`) on `domains`.
    private func rule(selectors: ArraySlice<SourcedSelector>, condition: StaticString?, domains: [String]) -> [UInt8] {
        rule(selectors: selectors) { out in
            JSONWriter.appendLiteral(#""url-filter":".*""#, to: &out)
            if let condition {
                out.append(UInt8(ascii: ","))
                JSONWriter.appendKey(condition, to: &out)
                JSONWriter.appendStringArray(DomainCondition.starred(domains), to: &out)
            }
        }
    }

    /// A rule matching the documents of the site whose `||site^` url-filter is `documentFilter`.
    private func rule(selectors: ArraySlice<SourcedSelector>, documentFilter: [UInt8]) -> [UInt8] {
        rule(selectors: selectors) { out in
            JSONWriter.appendKey("url-filter", to: &out)
            JSONWriter.appendString(documentFilter, to: &out)
            JSONWriter.appendLiteral(#","resource-type":["document"]"#, to: &out)
        }
    }

    /// `{"trigger":{…},"action":{"type":"css-display-none","selector":"a, b"}}`, the trigger's fields written by `trigger`.
    private func rule(selectors: ArraySlice<SourcedSelector>, trigger: (inout [UInt8]) -> Void) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.appendLiteral(#"{"trigger":{"#, to: &out)
        trigger(&out)
        out += action(selectors)
        return out
    }

    /// A document rule whose rule text after the trigger's fields is `action` (made by `action(_:)`).
    private func rule(documentFilter: [UInt8], action: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.appendLiteral(#"{"trigger":{"url-filter":"#, to: &out)
        JSONWriter.appendString(documentFilter, to: &out)
        JSONWriter.appendLiteral(#","resource-type":["document"]"#, to: &out)
        out += action
        return out
    }

    /// `ignore-previous-rules` in the documents `documentFilter` matches.
    private static func carveOut(documentFilter: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.appendLiteral(#"{"trigger":{"url-filter":"#, to: &out)
        JSONWriter.appendString(documentFilter, to: &out)
        JSONWriter.appendLiteral(
            #","resource-type":["document"]},"action":{"type":"ignore-previous-rules"}}"#, to: &out)
        return out
    }

    /// The end of a rule: `},"action":{"type":"css-display-none","selector":"a, b"}}`.
    private func action(_ selectors: ArraySlice<SourcedSelector>) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.appendLiteral(#"},"action":{"type":"css-display-none","selector":"#, to: &out)
        JSONWriter.appendString(selectors.map(\.selector).joined(separator: ", "), to: &out)
        JSONWriter.appendLiteral("}}", to: &out)
        return out
    }
}

/// A selector and the input line it came from.
private struct SourcedSelector {
    var selector: String
    var origin: LineOrigin?
}

/// Selectors grouped by domain set, groups in order of first appearance (no dictionary order leaks out).
private struct DomainGroups {
    private var slot: [[String]: Int] = [:]
    private(set) var groups: [(domains: [String], selectors: [SourcedSelector])] = []

    mutating func add(_ selector: SourcedSelector, domains: [String]) {
        if let index = slot[domains] {
            groups[index].selectors.append(selector)
        } else {
            slot[domains] = groups.count
            groups.append((domains, [selector]))
        }
    }
}
