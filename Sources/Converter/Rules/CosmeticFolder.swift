/// Folds `#@#` exceptions into hiding rules, since `ignore-previous-rules` cannot target one selector:
/// a generic `#@#sel` removes `sel` everywhere; `dom#@#sel` adds `dom` to a generic rule's exceptions
/// and removes `dom` (and its subdomains) from a site-specific rule's sites.
struct CosmeticFolder {
    /// One `##` line after domain resolution.
    struct HidingRule {
        var key: String
        var selector: String
        var domains: CosmeticSelector.Domains
        var sourceID: String
        var churn: ChurnClass
        /// What the line named beyond `domains` (its `name.*` sites), for the report.
        var skippedPart: SkipReason? = nil
    }

    /// One `#@#` line after domain resolution.
    struct ExceptionLine: Equatable {
        var selector: String
        /// Its plain sites; with none and no `entityHosts`, it cancels the selector everywhere.
        var domains: [String]
        /// It also cancels on `name.*` sites, which no WebKit condition can carve out of a hiding rule.
        var entityHosts: Bool
        /// `exceptionExclusionWidened` when its `~` sites were dropped, for the report.
        var skippedPart: SkipReason?

        var everywhere: Bool { domains.isEmpty && !entityHosts }
    }

    /// Exceptions for one selector.
    struct Exceptions {
        var everywhere = false
        var domains: [String] = []
        /// Some exception names a `name.*` site: every hiding rule of the selector is skipped.
        var entityHosts = false
        /// Each `#@#` line with its sites (empty: everywhere), for provenance.
        var lines: [(origin: LineOrigin, domains: [String])] = []

        /// The exception lines that changed a kept rule with these sites: all of them for a generic
        /// rule (they became its `unless-domain`), those that removed a site from a site rule.
        func lines(foldedInto sites: CosmeticSelector.Domains) -> [LineOrigin] {
            switch sites {
            case .everywhere, .except: return lines.map(\.origin)
            case .only(let sites):
                return lines.filter { line in
                    line.domains.contains { exception in
                        sites.contains { DomainNormalizer.isSameOrSubdomain($0, of: exception) }
                    }
                }.map(\.origin)
            }
        }
    }

    enum Outcome {
        case kept(CosmeticSelector)
        case skipped(SkipReason)
    }

    static func fold(_ rule: HidingRule, exceptions: Exceptions?) -> Outcome {
        guard let exceptions else {
            return .kept(
                CosmeticSelector(
                    key: rule.key, selector: rule.selector, domains: rule.domains, sourceID: rule.sourceID,
                    churn: rule.churn))
        }
        if exceptions.everywhere { return .skipped(.cancelledByException) }
        if exceptions.entityHosts { return .skipped(.cancelledByEntityException) }
        let domains: CosmeticSelector.Domains
        switch rule.domains {
        case .everywhere:
            domains = .except(Array(Set(exceptions.domains)).sorted())
        case .except(let existing):
            domains = .except(Array(Set(existing + exceptions.domains)).sorted())
        case .only(let sites):
            var kept: [String] = []
            for site in sites {
                // An entity site's hosts are not checked against the exception's sites: any
                // site exception of the selector leaves the entity out, so it never hides there.
                if EntityDomains.name(ofSite: site) != nil, !exceptions.domains.isEmpty { continue }
                if exceptions.domains.contains(where: { DomainNormalizer.isSameOrSubdomain(site, of: $0) }) { continue }
                if exceptions.domains.contains(where: { DomainNormalizer.isSameOrSubdomain($0, of: site) }) {
                    return .skipped(.cosmeticExceptionInexact)
                }
                kept.append(site)
            }
            if kept.isEmpty { return .skipped(.cancelledByException) }
            domains = .only(kept)
        }
        return .kept(
            CosmeticSelector(
                key: rule.key, selector: rule.selector, domains: domains, sourceID: rule.sourceID, churn: rule.churn))
    }
}
