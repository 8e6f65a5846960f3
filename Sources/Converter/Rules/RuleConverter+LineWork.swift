import PublicSuffix

/// The per-line work of `RuleConverter`: what one filter line means, computed from the line alone.
extension RuleConverter {
    /// The per-line work for one chunk: classify, parse and build, for every filter line (comments,
    /// headers and blank lines are dropped). Pure: reads only the chunk's own lines.
    /// - Parameter exceptedSelectors: the input's `#@#` selectors, to mark sure members (nil: mark none).
    static func parse(
        _ chunk: Chunk, sources: [FilterListSource], lineRanges: [Range<Int>],
        exceptedSelectors: Set<String>? = nil, target: ConversionTarget = .safari17, keepsEntityHiding: Bool = false,
        publicSuffixes: PublicSuffixList? = nil
    ) -> ParsedChunk {
        let source = sources[chunk.source]
        var outcomes: [LineOutcome] = []
        var summaries: [LineSummary] = []
        outcomes.reserveCapacity(chunk.lines.count)
        summaries.reserveCapacity(chunk.lines.count)
        var churn = chunk.churn
        var scratch: [UInt8] = []
        source.bytes.withUnsafeBufferPointer { buffer in
            for lineIndex in chunk.lines {
                let range = lineRanges[lineIndex]
                let line = UnsafeBufferPointer(rebasing: buffer[range])
                let kind = LineClassifier.classify(line)
                if kind == .notARule {
                    if let section = SectionChurn.sectionClass(ofLine: line) { churn = section }
                    continue
                }
                if case .unusable(let reason) = kind {
                    outcomes.append(.unusable(reason, example: String(decoding: line.prefix(200), as: UTF8.self)))
                    summaries.append(LineSummary(hash: 0, role: .unusable, line: Int32(lineIndex + 1)))
                    continue
                }
                let lineKey = LineKey(line)
                let key = lineKey.text
                let slice = source.bytes[range]
                var filter: Filter
                switch kind {
                case .cosmetic(let separatorStart):
                    switch CosmeticFilterParser.parse(slice, separatorStart: range.lowerBound + separatorStart) {
                    case .failure(let error):
                        filter = .skipped(error.reason)
                    case .success(let parsed) where parsed.isException:
                        filter = .cosmeticException(exception(parsed))
                    case .success(let parsed):
                        filter = .hiding(
                            hidingRule(
                                parsed, key: key, sourceID: source.id, churn: churn,
                                keepsEntities: keepsEntityHiding))
                    }
                default:
                    switch NetworkFilterParser.parse(slice) {
                    case .failure(let error):
                        filter = .skipped(error.reason)
                    case .success(let parsed):
                        if let target = parsed.badfilterTarget {
                            filter = .badfilter(target: target.withUnsafeBufferPointer { LineKey($0) })
                        } else if let site = SiteExceptionBuilder.build(parsed) {
                            filter = .siteException(site)
                        } else {
                            filter = .network(
                                NetworkRuleBuilder.build(
                                    parsed, scratch: &scratch, target: target, publicSuffixes: publicSuffixes))
                        }
                    }
                }
                if !source.isolatedLines.isEmpty, source.isolatedLines.contains(lineIndex + 1) {
                    filter = .skipped(.webkitRejected)
                }
                var summary = LineSummary(hash: lineKey.hash, role: .rule, churn: churn, line: Int32(lineIndex + 1))
                switch filter {
                case .skipped: summary.role = .skipped
                case .badfilter: summary.role = .badfilter
                case .cosmeticException: summary.role = .cosmeticException
                case .network(.success(let built)):
                    summary.networkRules = Int32(built.ruleCount)
                    if case .carvedOut = built.condition {
                    } else {
                        summary.isSureMember = built.kind != .exception && exceptedSelectors != nil
                    }
                case .hiding(.success(let rule)):
                    summary.isSureMember = exceptedSelectors.map { !$0.contains(rule.selector) } ?? false
                case .network(.failure), .hiding(.failure), .siteException: break
                }
                outcomes.append(.filter(key: lineKey, filter))
                summaries.append(summary)
            }
        }
        return ParsedChunk(outcomes: outcomes, summaries: summaries)
    }

    /// A `#@#` exception's selector and sites, or why it cannot be folded. It must cancel at least
    /// what ABP cancels, so `~` sites are dropped (it then cancels there too) and `name.*` sites are
    /// kept as a flag that cancels the selector's hiding rules outright.
    private static func exception(_ filter: CosmeticFilter) -> Result<CosmeticFolder.ExceptionLine, SkipReasonError> {
        switch CSSSelectorChecker.check(filter.selector) {
        case .valid: break
        case .extendedCSS: return .failure(SkipReasonError(reason: .extendedCSS))
        case .invalid: return .failure(SkipReasonError(reason: .invalidSelector))
        }
        let split = EntityDomains.split(included: filter.includedDomains, excluded: [])
        var domains: [String] = []
        for raw in split.included {
            switch DomainNormalizer.normalize(raw) {
            case .domain(let domain): domains.append(domain)
            case .failure(let reason): return .failure(SkipReasonError(reason: reason))
            }
        }
        return .success(
            CosmeticFolder.ExceptionLine(
                selector: String(decoding: filter.selector, as: UTF8.self), domains: domains,
                entityHosts: split.entityIncluded,
                skippedPart: filter.excludedDomains.isEmpty ? nil : .exceptionExclusionWidened))
    }

    /// - Parameter keepsEntities: entity sites stay sites of the rule (`EntityDomains.site`) when
    ///   the line names no `~` site; otherwise they are left out (`EntityDomains.plainPart`).
    private static func hidingRule(
        _ filter: CosmeticFilter, key: String, sourceID: String,
        churn: ChurnClass, keepsEntities: Bool
    ) -> Result<CosmeticFolder.HidingRule, SkipReasonError> {
        switch CSSSelectorChecker.check(filter.selector) {
        case .valid: break
        case .extendedCSS: return .failure(SkipReasonError(reason: .extendedCSS))
        case .invalid: return .failure(SkipReasonError(reason: .invalidSelector))
        }
        if keepsEntities, filter.excludedDomains.isEmpty,
            filter.includedDomains.contains(where: DomainNormalizer.isEntity)
        {
            let split = EntityDomains.split(included: filter.includedDomains, excluded: [])
            return entityHidingRule(filter, split: split, key: key, sourceID: sourceID, churn: churn)
        }
        let plain: (included: [ArraySlice<UInt8>], excluded: [ArraySlice<UInt8>], skippedPart: SkipReason?)
        switch EntityDomains.plainPart(included: filter.includedDomains, excluded: filter.excludedDomains) {
        case .success(let part): plain = part
        case .failure(let error): return .failure(error)
        }
        let domains: CosmeticSelector.Domains
        switch DomainCondition.resolve(included: plain.included, excluded: plain.excluded) {
        case .failure(let error): return .failure(error)
        case .success(.any): domains = .everywhere
        case .success(.only(let sites)): domains = .only(sites)
        case .success(.except(let sites)): domains = .except(sites)
        case .success(.carvedOut): return .failure(SkipReasonError(reason: .mixedDomainCosmetic))
        }
        return .success(
            CosmeticFolder.HidingRule(
                key: key, selector: String(decoding: filter.selector, as: UTF8.self),
                domains: domains, sourceID: sourceID, churn: churn,
                skippedPart: plain.skippedPart))
    }

    /// A hiding rule on plain and entity sites, none excluded: every site stays, entity sites as `name.*`.
    private static func entityHidingRule(
        _ filter: CosmeticFilter, split: EntityDomains.Split, key: String, sourceID: String, churn: ChurnClass
    ) -> Result<CosmeticFolder.HidingRule, SkipReasonError> {
        var sites: [String] = []
        if !split.included.isEmpty {
            switch DomainCondition.resolve(included: split.included, excluded: []) {
            case .failure(let error): return .failure(error)
            case .success(.only(let plain)): sites = plain
            case .success: return .failure(SkipReasonError(reason: .invalidDomain))
            }
        }
        let entities = split.entityNames.compactMap(EntityDomains.site)
        if sites.isEmpty && entities.isEmpty { return .failure(SkipReasonError(reason: .entityDomain)) }
        return .success(
            CosmeticFolder.HidingRule(
                key: key, selector: String(decoding: filter.selector, as: UTF8.self),
                domains: .only(Array(Set(sites + entities)).sorted()), sourceID: sourceID, churn: churn,
                skippedPart: entities.count < split.entityNames.count ? .entityDomainPart : nil))
    }
}
