/// ABP entity domains (`google.*`: the name under any public suffix, and its subdomains) have no
/// trigger condition: `if-domain` names one registrable site, and the set of public suffixes is not
/// something a trigger can list. So a rule's entity domains are set apart from its plain ones, and
/// only a part whose loss can never make WebKit hide or block more than ABP is left out. Hiding
/// rules of targets that name entity domains keep them as sites instead (`site(_:)`), whose
/// documents `EntityDomainFilters` names through url-filters.
struct EntityDomains {
    /// The plain domains of a rule's domain list, and what it named beyond them.
    struct Split: Equatable {
        var included: [ArraySlice<UInt8>] = []
        var excluded: [ArraySlice<UInt8>] = []
        var entityIncluded: Bool { !entityNames.isEmpty }
        var entityExcluded = false
        /// The included entity domains, `name.*` as written.
        var entityNames: [ArraySlice<UInt8>] = []
    }

    static func split(included: [ArraySlice<UInt8>], excluded: [ArraySlice<UInt8>]) -> Split {
        var split = Split()
        for domain in included {
            if DomainNormalizer.isEntity(domain) {
                split.entityNames.append(domain)
            } else {
                split.included.append(domain)
            }
        }
        for domain in excluded {
            if DomainNormalizer.isEntity(domain) { split.entityExcluded = true } else { split.excluded.append(domain) }
        }
        return split
    }

    /// The plain part of the domain list of a rule whose reach must not grow (hiding and block rules,
    /// and network exceptions, which follow the same policy): included entity domains are left out
    /// (the rule then applies on fewer sites), an excluded one skips the rule (without it the rule
    /// would apply on sites ABP spares), and so does a list whose every included site is an entity.
    static func plainPart(included: [ArraySlice<UInt8>], excluded: [ArraySlice<UInt8>])
        -> Result<
            (included: [ArraySlice<UInt8>], excluded: [ArraySlice<UInt8>], skippedPart: SkipReason?), SkipReasonError
        >
    {
        let split = split(included: included, excluded: excluded)
        if split.entityExcluded { return .failure(SkipReasonError(reason: .entityDomainExcluded)) }
        guard split.entityIncluded else { return .success((included, excluded, nil)) }
        if split.included.isEmpty { return .failure(SkipReasonError(reason: .entityDomain)) }
        return .success((split.included, split.excluded, .entityDomainPart))
    }

    /// An included entity domain as a hiding rule's site: the normalized name with `.*` (nil when
    /// the name is not a host name, so the site is left out).
    static func site(_ raw: ArraySlice<UInt8>) -> String? {
        guard case .domain(let name) = DomainNormalizer.normalize(raw.dropLast(2)) else { return nil }
        return name + ".*"
    }

    /// The entity name of a hiding rule's site made by `site(_:)`; nil for a plain site.
    static func name(ofSite site: String) -> String? {
        site.hasSuffix(".*") ? String(site.dropLast(2)) : nil
    }
}
