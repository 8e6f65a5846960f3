/// Turns one list's selectors into `css-display-none` rules.
///
/// Generic selectors are joined `perRule` at a time (few rules compile fast); site selectors are
/// grouped by identical domain set, one rule per set (split every `perRule` selectors), with
/// `if-domain` or `unless-domain` listing `*`-prefixed domains so subdomains match too. Groups follow
/// list order, and list order keeps survivors in place and appends newcomers, so a new selector
/// lands in the last group of its kind instead of reshuffling the others.
struct CosmeticRuleBuilder: Sendable {
    var perRule: Int

    /// Rules for `selectors` (in list order): everywhere groups, then `unless-domain`, then `if-domain` groups.
    func rules(_ selectors: [CosmeticSelector]) -> [[UInt8]] {
        var everywhere: [String] = []
        var except = DomainGroups()
        var only = DomainGroups()
        for selector in selectors {
            switch selector.domains {
            case .everywhere: everywhere.append(selector.selector)
            case .except(let domains): except.add(selector.selector, domains: domains)
            case .only(let domains): only.add(selector.selector, domains: domains)
            }
        }
        var out: [[UInt8]] = []
        for chunk in chunks(everywhere) {
            out.append(rule(selectors: chunk, condition: nil, domains: []))
        }
        for (domains, group) in except.groups {
            for chunk in chunks(group) { out.append(rule(selectors: chunk, condition: "unless-domain", domains: domains)) }
        }
        for (domains, group) in only.groups {
            for chunk in chunks(group) { out.append(rule(selectors: chunk, condition: "if-domain", domains: domains)) }
        }
        return out
    }

    private func chunks(_ selectors: [String]) -> [ArraySlice<String>] {
        stride(from: 0, to: selectors.count, by: max(1, perRule)).map {
            selectors[$0..<min($0 + max(1, perRule), selectors.count)]
        }
    }

    private func rule(selectors: ArraySlice<String>, condition: String?, domains: [String]) -> [UInt8] {
        var out = Array(#"{"trigger":{"url-filter":".*""#.utf8)
        if let condition {
            out += Array(",\"\(condition)\":".utf8)
            JSONWriter.appendStringArray(domains.map { "*" + $0 }, to: &out)
        }
        out += Array(#"},"action":{"type":"css-display-none","selector":"#.utf8)
        JSONWriter.appendString(selectors.joined(separator: ", "), to: &out)
        out += Array("}}".utf8)
        return out
    }
}

/// Selectors grouped by domain set, groups in order of first appearance (no dictionary order leaks out).
private struct DomainGroups {
    private var slot: [[String]: Int] = [:]
    private(set) var groups: [(domains: [String], selectors: [String])] = []

    mutating func add(_ selector: String, domains: [String]) {
        if let index = slot[domains] {
            groups[index].selectors.append(selector)
        } else {
            slot[domains] = groups.count
            groups.append((domains, [selector]))
        }
    }
}
