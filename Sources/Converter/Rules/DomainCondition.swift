/// The page-domain condition of a rule after ABP's `$domain=` (or cosmetic domain list) is resolved
/// into what one WebKit trigger can carry.
enum DomainCondition: Equatable, Sendable {
    case any
    /// `if-domain` with `*` prefixes: these sites and their subdomains.
    case only([String])
    /// `unless-domain` with `*` prefixes.
    case except([String])
    /// Included sites minus some of their subdomains: a block plus a carve-out exception.
    case carvedOut(included: [String], excluded: [String])

    /// Resolves included and excluded ABP domains following ABP's "most specific domain wins" rule.
    /// Excludes that are not inside any include change nothing and are dropped; an include inside
    /// an exclude (three levels) cannot be expressed.
    static func resolve(included rawIncluded: [ArraySlice<UInt8>], excluded rawExcluded: [ArraySlice<UInt8>]) -> Result<
        DomainCondition, SkipReasonError
    > {
        if rawIncluded.isEmpty && rawExcluded.isEmpty { return .success(.any) }
        var included: [String] = []
        var excluded: [String] = []
        for raw in rawIncluded {
            switch DomainNormalizer.normalize(raw) {
            case .domain(let domain): included.append(domain)
            case .failure(let reason): return .failure(SkipReasonError(reason: reason))
            }
        }
        for raw in rawExcluded {
            switch DomainNormalizer.normalize(raw) {
            case .domain(let domain): excluded.append(domain)
            case .failure(let reason): return .failure(SkipReasonError(reason: reason))
            }
        }
        included = Array(Set(included)).sorted()
        excluded = Array(Set(excluded)).sorted()
        if included.isEmpty { return .success(excluded.isEmpty ? .any : .except(excluded)) }
        if excluded.isEmpty { return .success(.only(included)) }
        let relevant = excluded.filter { exclude in
            included.contains { DomainNormalizer.isSameOrSubdomain(exclude, of: $0) }
        }
        if relevant.isEmpty { return .success(.only(included)) }
        let nested = included.contains { include in
            relevant.contains { DomainNormalizer.isSameOrSubdomain(include, of: $0) }
        }
        if nested { return .failure(SkipReasonError(reason: .mixedDomainNested)) }
        return .success(.carvedOut(included: included, excluded: relevant))
    }

    /// `["*a.com","*b.com"]`: WebKit's `*` prefix means "this site and its subdomains", ABP's semantics.
    static func starred(_ domains: [String]) -> [String] { domains.map { "*" + $0 } }
}
