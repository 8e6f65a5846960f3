/// Which `@@` exceptions and site exceptions a list must carry.
///
/// `ignore-previous-rules` only cancels earlier rules of its own list, so an exception must be in
/// every list holding a rule it can cancel, and it can cancel a rule only if some request matches
/// both. Two conditions are checked, each conservatively:
/// - URL: an exception anchored to host E (`||E^`) matches only URLs on E and its subdomains; a
///   block anchored to B only URLs on B and its subdomains. They meet exactly when E and B are
///   equal or one is a subdomain of the other. An unanchored exception or block may meet anything.
/// - Page: an exception with `if-domain` D' only acts on pages of D'; a rule with `if-domain` D only
///   on pages of D. They meet when some domain of D relates to some domain of D'. A rule or an
///   exception without `if-domain` (including `unless-domain`) may act on any page.
/// - Resource type: an exception with `resource-type` R' only matches loads of those types; a rule
///   with `resource-type` R only those of R. They meet when R and R' share a type; a missing
///   `resource-type` means every type.
/// The checks are made against the whole list separately, so a kept exception may still be
/// irrelevant, but a dropped one provably cannot cancel anything in the list.
struct ExceptionScope: Sendable {
    /// Some rule may match a URL on any host.
    private var anyURL = false
    private var urlHosts = HostRelationIndex()
    /// Some rule may act on any page.
    private var anyPage = false
    private var pageDomains = HostRelationIndex()
    /// Some rule matches every resource type.
    private var anyType = false
    private var types: WebKitResourceTypes = []
    /// For small lists, every rule's conditions, so the three checks can be combined per rule: an
    /// exception is kept only if one single rule passes all three.
    private var rules: [(host: String?, pages: [String]?, types: WebKitResourceTypes?)]?
    /// Lists up to this many rules get the exact per-rule check (it costs rules × exceptions).
    static let exactCheckLimit = 200

    /// - Parameters:
    ///   - urlHosts: each cancellable rule's anchor host (nil: unanchored); empty for rules without URLs (cosmetic).
    ///   - pageDomains: each cancellable rule's `if-domain` domains without `*` (nil: any page).
    ///   - resourceTypes: each cancellable rule's `resource-type` (nil: every type); nil for the whole
    ///     argument when unknown (cosmetic rules, site exceptions).
    init(urlHosts: [String?], pageDomains: [[String]?], resourceTypes: [WebKitResourceTypes?]? = nil) {
        if let resourceTypes, urlHosts.count <= ExceptionScope.exactCheckLimit, urlHosts.count == pageDomains.count,
            urlHosts.count == resourceTypes.count
        {
            rules = (0..<urlHosts.count).map { (urlHosts[$0], pageDomains[$0], resourceTypes[$0]) }
        }
        if let resourceTypes {
            for ruleTypes in resourceTypes {
                if let ruleTypes { types.formUnion(ruleTypes) } else { anyType = true }
            }
        } else {
            anyType = true
        }
        self.urlHosts.reserveCapacity(urlHosts.count)
        for host in urlHosts {
            if let host, ExceptionScope.hasDot(host) { self.urlHosts.insert(host) } else { anyURL = true }
        }
        for domains in pageDomains {
            guard let domains, !domains.isEmpty else {
                anyPage = true
                continue
            }
            for domain in domains { self.pageDomains.insert(domain) }
        }
    }

    /// Whether an exception anchored to `host` (nil: unanchored) with `if-domain` `domains` (nil:
    /// any page) and `resource-type` `resourceTypes` (nil: every type) can cancel a rule of the list.
    func mayCancel(exceptionHost host: String?, pages domains: [String]?, resourceTypes: WebKitResourceTypes? = nil)
        -> Bool
    {
        guard mayMatchURL(on: host) && mayActOnPage(of: domains) && mayMatchType(resourceTypes) else { return false }
        guard let rules else { return true }
        return rules.contains { rule in
            ExceptionScope.related(host, rule.host)
                && ExceptionScope.overlap(domains, rule.pages, related: ExceptionScope.related)
                && ExceptionScope.overlap(resourceTypes, rule.types)
        }
    }

    /// Whether `host` has a dot (a bare label such as `com` may be anything's parent), read from its bytes.
    static func hasDot(_ host: String) -> Bool {
        var host = host
        return host.withUTF8 { $0.contains(UInt8(ascii: ".")) }
    }

    /// Whether two hosts (nil: any host) can cover a common host: equal, or one below the other.
    static func related(_ lhs: String?, _ rhs: String?) -> Bool {
        guard let lhs, let rhs, hasDot(lhs), hasDot(rhs) else { return true }
        return lhs == rhs || lhs.hasSuffix("." + rhs) || rhs.hasSuffix("." + lhs)
    }

    /// Whether two condition lists (nil or empty: no condition) can both hold.
    static func overlap(_ lhs: [String]?, _ rhs: [String]?, related: (String, String) -> Bool) -> Bool {
        guard let lhs, let rhs, !lhs.isEmpty, !rhs.isEmpty else { return true }
        return lhs.contains { left in rhs.contains { related(left, $0) } }
    }

    /// Whether two `resource-type` sets (nil: every type) share a type.
    static func overlap(_ lhs: WebKitResourceTypes?, _ rhs: WebKitResourceTypes?) -> Bool {
        guard let lhs, let rhs else { return true }
        return !lhs.isDisjoint(with: rhs)
    }

    private func mayMatchType(_ exceptionTypes: WebKitResourceTypes?) -> Bool {
        guard !anyType, let exceptionTypes else { return true }
        return !exceptionTypes.isDisjoint(with: types)
    }

    /// For site exceptions (`url-filter: ".*"`), only the page condition matters.
    func mayActOnPage(of domains: [String]?) -> Bool {
        guard !anyPage, let domains, !domains.isEmpty else { return true }
        return domains.contains { pageDomains.relates(to: $0) }
    }

    private func mayMatchURL(on host: String?) -> Bool {
        guard !anyURL, let host else { return true }
        return urlHosts.relates(to: host)
    }
}
