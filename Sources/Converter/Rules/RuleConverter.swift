/// Rule conversion entry point: ABP list bytes → every WebKit rule they express (`ConvertedRules`),
/// plus per-source coverage. Each filter line ends up converted (or folded) or skipped with a reason.
///
/// Two passes: the first parses every line and collects `$badfilter` targets and `#@#` exceptions,
/// which can appear anywhere (in any list); the second converts what is left, in input order.
struct RuleConverter: Sendable {
    init() {}

    private enum Parsed {
        case network(NetworkFilter)
        case cosmetic(CosmeticFilter)
    }

    private struct Entry {
        var source: Int
        var key: String
        var parsed: Parsed
    }

    /// A block with a carve-out exception, kept to prove no other such unit's exception cancels it.
    private struct CarveOutUnit {
        var included: [String]
        var excluded: [String]
    }

    func convert(_ sources: [FilterListSource]) -> (rules: ConvertedRules, reports: [ConversionReport.SourceReport]) {
        var tallies = sources.map { SourceTally(id: $0.id) }
        var entries: [Entry] = []
        var seen = Set<String>(minimumCapacity: sources.reduce(0) { $0 + $1.bytes.count / 16 })
        var badfilterTargets = Set<String>()
        var cosmeticExceptions: [String: CosmeticFolder.Exceptions] = [:]

        for (sourceIndex, source) in sources.enumerated() {
            let ranges = FilterLineReader.lineRanges(in: source.bytes)
            tallies[sourceIndex].lines = ranges.count
            source.bytes.withUnsafeBufferPointer { buffer in
                for range in ranges {
                    let line = UnsafeBufferPointer(rebasing: buffer[range])
                    let kind = LineClassifier.classify(line)
                    if kind == .notARule { continue }
                    tallies[sourceIndex].rules += 1
                    if case .unusable(let reason) = kind {
                        tallies[sourceIndex].skip(reason, line: String(decoding: line.prefix(200), as: UTF8.self))
                        continue
                    }
                    let key = String(decoding: line, as: UTF8.self)
                    if !seen.insert(key).inserted {
                        tallies[sourceIndex].skip(.duplicate, line: key)
                        continue
                    }
                    let slice = source.bytes[range]
                    switch kind {
                    case .cosmetic(let separatorStart):
                        switch CosmeticFilterParser.parse(slice, separatorStart: range.lowerBound + separatorStart) {
                        case .failure(let error):
                            tallies[sourceIndex].skip(error.reason, line: key)
                        case .success(let filter):
                            if filter.isException {
                                switch Self.recordException(filter, into: &cosmeticExceptions) {
                                case nil: tallies[sourceIndex].converted += 1
                                case let reason?: tallies[sourceIndex].skip(reason, line: key)
                                }
                            } else {
                                entries.append(Entry(source: sourceIndex, key: key, parsed: .cosmetic(filter)))
                            }
                        }
                    default:
                        switch NetworkFilterParser.parse(slice) {
                        case .failure(let error):
                            tallies[sourceIndex].skip(error.reason, line: key)
                        case .success(let filter):
                            if let target = filter.badfilterTarget {
                                badfilterTargets.insert(String(decoding: target, as: UTF8.self))
                                tallies[sourceIndex].skip(.badfilter, line: key)
                            } else {
                                entries.append(Entry(source: sourceIndex, key: key, parsed: .network(filter)))
                            }
                        }
                    }
                }
            }
        }

        var rules = ConvertedRules()
        rules.network.reserveCapacity(entries.count)
        var carveOuts: [CarveOutUnit] = []
        for entry in entries {
            let sourceID = sources[entry.source].id
            switch entry.parsed {
            case .network(let filter):
                if badfilterTargets.contains(entry.key) {
                    tallies[entry.source].skip(.cancelledByBadfilter, line: entry.key)
                    continue
                }
                if let site = SiteExceptionBuilder.build(filter) {
                    switch site {
                    case .success(let built):
                        rules.siteExceptions.append(SiteException(key: entry.key, scope: built.scope, json: built.json, sourceID: sourceID))
                        tallies[entry.source].converted += 1
                    case .failure(let error):
                        tallies[entry.source].skip(error.reason, line: entry.key)
                    }
                    continue
                }
                switch NetworkRuleBuilder.build(filter) {
                case .failure(let error):
                    tallies[entry.source].skip(error.reason, line: entry.key)
                case .success(let built):
                    if case .carvedOut(let included, let excluded) = built.condition {
                        let unit = CarveOutUnit(included: included, excluded: excluded)
                        if carveOuts.contains(where: { Self.conflict($0, unit) || Self.conflict(unit, $0) }) {
                            tallies[entry.source].skip(.mixedDomainConflict, line: entry.key)
                            continue
                        }
                        carveOuts.append(unit)
                    }
                    for (index, rule) in built.rules.enumerated() {
                        rules.network.append(NetworkRule(
                            key: index == 0 ? entry.key : entry.key + "#\(index)", kind: built.kind, json: rule.json,
                            anchorHost: built.anchorHost, sourceID: sourceID, carveOut: rule.carveOut,
                            navigation: built.navigation))
                    }
                    tallies[entry.source].converted += 1
                }
            case .cosmetic(let filter):
                switch Self.hidingRule(filter, key: entry.key, sourceID: sourceID, sourceIndex: entry.source) {
                case .failure(let error):
                    tallies[entry.source].skip(error.reason, line: entry.key)
                case .success(let hiding):
                    switch CosmeticFolder.fold(hiding, exceptions: cosmeticExceptions[hiding.selector]) {
                    case .kept(let selector):
                        rules.cosmetic.append(selector)
                        tallies[entry.source].converted += 1
                    case .skipped(let reason):
                        tallies[entry.source].skip(reason, line: entry.key)
                    }
                }
            }
        }
        return (rules, tallies.map(\.report))
    }

    /// True when `later`'s carve-out exception could cancel `earlier`'s block on a page where it applies:
    /// an excluded site of `later` overlaps an included site of `earlier` without being excluded there too.
    private static func conflict(_ earlier: CarveOutUnit, _ later: CarveOutUnit) -> Bool {
        later.excluded.contains { exclude in
            earlier.included.contains {
                DomainNormalizer.isSameOrSubdomain(exclude, of: $0) || DomainNormalizer.isSameOrSubdomain($0, of: exclude)
            } && !earlier.excluded.contains { DomainNormalizer.isSameOrSubdomain(exclude, of: $0) }
        }
    }

    /// Records a `#@#` exception; returns a skip reason when it cannot be folded exactly.
    private static func recordException(_ filter: CosmeticFilter, into exceptions: inout [String: CosmeticFolder.Exceptions]) -> SkipReason? {
        switch CSSSelectorChecker.check(filter.selector) {
        case .valid: break
        case .extendedCSS: return .extendedCSS
        case .invalid: return .invalidSelector
        }
        if !filter.excludedDomains.isEmpty { return .cosmeticExceptionInexact }
        var domains: [String] = []
        for raw in filter.includedDomains {
            switch DomainNormalizer.normalize(raw) {
            case .domain(let domain): domains.append(domain)
            case .failure(let reason): return reason
            }
        }
        let selector = String(decoding: filter.selector, as: UTF8.self)
        var entry = exceptions[selector] ?? CosmeticFolder.Exceptions()
        if domains.isEmpty { entry.everywhere = true } else { entry.domains.append(contentsOf: domains) }
        exceptions[selector] = entry
        return nil
    }

    private static func hidingRule(_ filter: CosmeticFilter, key: String, sourceID: String, sourceIndex: Int) -> Result<CosmeticFolder.HidingRule, SkipReasonError> {
        switch CSSSelectorChecker.check(filter.selector) {
        case .valid: break
        case .extendedCSS: return .failure(SkipReasonError(reason: .extendedCSS))
        case .invalid: return .failure(SkipReasonError(reason: .invalidSelector))
        }
        let domains: CosmeticSelector.Domains
        switch DomainCondition.resolve(included: filter.includedDomains, excluded: filter.excludedDomains) {
        case .failure(let error): return .failure(error)
        case .success(.any): domains = .everywhere
        case .success(.only(let sites)): domains = .only(sites)
        case .success(.except(let sites)): domains = .except(sites)
        case .success(.carvedOut): return .failure(SkipReasonError(reason: .mixedDomainCosmetic))
        }
        return .success(CosmeticFolder.HidingRule(key: key, selector: String(decoding: filter.selector, as: UTF8.self),
                                                  domains: domains, sourceID: sourceID, sourceIndex: sourceIndex))
    }
}
