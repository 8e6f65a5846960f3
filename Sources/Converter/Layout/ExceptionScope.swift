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
/// The two checks are made against the whole list separately, so a kept exception may still be
/// irrelevant, but a dropped one provably cannot cancel anything in the list.
struct ExceptionScope: Sendable {
    /// Some rule may match a URL on any host.
    private var anyURL = false
    private var urlHosts = HostRelationIndex()
    /// Some rule may act on any page.
    private var anyPage = false
    private var pageDomains = HostRelationIndex()

    /// - Parameters:
    ///   - urlHosts: each cancellable rule's anchor host (nil: unanchored); empty for rules without URLs (cosmetic).
    ///   - pageDomains: each cancellable rule's `if-domain` domains without `*` (nil: any page).
    init(urlHosts: [String?], pageDomains: [[String]?]) {
        self.urlHosts.reserveCapacity(urlHosts.count)
        for host in urlHosts {
            if let host, host.utf8.contains(UInt8(ascii: ".")) { self.urlHosts.insert(host) } else { anyURL = true }
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
    /// any page) can cancel a rule of the list.
    func mayCancel(exceptionHost host: String?, pages domains: [String]?) -> Bool {
        mayMatchURL(on: host) && mayActOnPage(of: domains)
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
