/// Rule conversion entry point: ABP list bytes → every WebKit rule they express (`ConvertedRules`),
/// plus per-source coverage. Each filter line ends up converted (or folded) or skipped with a reason.
///
/// Two passes: the first parses every line and collects `$badfilter` targets and `#@#` exceptions,
/// which can appear anywhere (in any list); the second converts what is left, in input order.
/// The per-line work of both passes (parsing, building rule JSON) depends on nothing but the line,
/// so it runs first, in chunks spread over the cores; the passes then only combine its results in
/// input order, which keeps the output the same whatever the number of cores.
struct RuleConverter: Sendable {
    init() {}

    /// Lines one piece of parallel work parses: big enough to outweigh scheduling, small enough to balance two cores.
    static let linesPerChunk = 4_096

    /// What the per-line work found for one filter line.
    private enum LineOutcome {
        /// Unusable bytes: counted and skipped before duplicate detection (`example` is the line's first 200 bytes).
        case unusable(SkipReason, example: String)
        /// A usable filter line; `key` is its text.
        case filter(key: LineKey, Filter)
        /// Moved out by the second pass, its last reader.
        case taken

        /// The line's text (rare paths only: it copies the string reference).
        var keyText: String {
            if case .filter(let key, _) = self { return key.text }
            return ""
        }
    }

    /// What the sequential first pass needs of a line, kept apart from its outcome so that the
    /// pass reads plain values for the common lines and touches no reference-counted payload.
    private struct LineSummary {
        enum Role: UInt8 {
            case unusable, skipped, badfilter, cosmeticException
            /// Converted later, in the second pass: hiding rules, site exceptions, network rules.
            case rule
        }

        /// `LineKey.hash` (0 for unusable lines).
        var hash: UInt64
        var role: Role
        /// WebKit rules the line's network filter became (to reserve the output's capacity).
        var networkRules: Int32 = 0
        /// The churn class of the line's section.
        var churn = ChurnClass.calm
    }

    /// The per-line work's results for one chunk, parallel arrays in line order.
    private struct ParsedChunk {
        var outcomes: [LineOutcome] = []
        var summaries: [LineSummary] = []
    }

    /// A line's text with its hash computed by the per-line work, so the sequential passes'
    /// duplicate and `$badfilter` lookups do not hash the whole line again.
    private struct LineKey: Hashable {
        var text: String
        var hash: UInt64

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            text = String(decoding: bytes, as: UTF8.self)
            hash = FNV1a.hash(bytes)
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        static func == (lhs: LineKey, rhs: LineKey) -> Bool { lhs.hash == rhs.hash && lhs.text == rhs.text }
    }

    /// A usable line's meaning, everything computed that does not depend on other lines.
    private enum Filter {
        case skipped(SkipReason)
        case badfilter(target: LineKey)
        /// A `#@#` exception: its selector and normalized sites (empty: everywhere), or why it cannot be folded.
        case cosmeticException(Result<(selector: String, domains: [String]), SkipReasonError>)
        case hiding(Result<CosmeticFolder.HidingRule, SkipReasonError>)
        case siteException(Result<(scope: SiteException.Scope, json: [UInt8], pages: [String]), SkipReasonError>)
        case network(Result<NetworkRuleBuilder.Built, SkipReasonError>)

        /// A network filter (site exceptions included): what `$badfilter` can cancel.
        var isNetwork: Bool {
            switch self {
            case .siteException, .network: return true
            case .skipped, .badfilter, .cosmeticException, .hiding: return false
            }
        }
    }

    /// A line the second pass converts: where its outcome is in the first pass's results.
    private struct Entry {
        var chunk: Int32
        var line: Int32
    }

    /// A block with a carve-out exception, kept to prove no other such unit's exception cancels it.
    private struct CarveOutUnit {
        var included: [String]
        var excluded: [String]
    }

    /// A run of one source's lines, parsed as one piece of work.
    private struct Chunk {
        var source: Int
        var lines: Range<Int>
        /// The churn class of the section the chunk starts in.
        var churn = ChurnClass.calm
    }

    func convert(_ sources: [FilterListSource]) -> (rules: ConvertedRules, reports: [ConversionReport.SourceReport]) {
        var tallies = sources.map { SourceTally(id: $0.id) }
        let lineRanges = sources.map { FilterLineReader.lineRanges(in: $0.bytes) }
        var chunks: [Chunk] = []
        for (sourceIndex, ranges) in lineRanges.enumerated() {
            tallies[sourceIndex].lines = ranges.count
            let starts = Array(stride(from: 0, to: ranges.count, by: Self.linesPerChunk))
            let classes = SectionChurn.classes(at: starts, lines: ranges, bytes: sources[sourceIndex].bytes)
            for (start, churn) in zip(starts, classes) {
                chunks.append(Chunk(source: sourceIndex, lines: start..<min(start + Self.linesPerChunk, ranges.count), churn: churn))
            }
        }
        var parsed = Parallel.map(chunks.count) { index -> ParsedChunk in
            Self.parse(chunks[index], sources: sources, lineRanges: lineRanges[chunks[index].source])
        }

        var entries: [Entry] = []
        entries.reserveCapacity(parsed.reduce(0) { $0 + $1.summaries.count })
        // Duplicates: the first line of each hash, by position (chunk × linesPerChunk + line); the texts are
        // compared only when a hash repeats, and different lines of one hash are told apart by text.
        var firstLine = HashIndex64()
        firstLine.reserveCapacity(entries.capacity)
        var collisions = Set<String>()
        var badfilterTargets = Set<LineKey>()
        var cosmeticExceptions: [String: CosmeticFolder.Exceptions] = [:]
        var networkRuleCount = 0
        var otherRuleCount = 0  // hiding rules and site exceptions, at most
        for chunkIndex in chunks.indices {
            let sourceIndex = chunks[chunkIndex].source
            let summaries = parsed[chunkIndex].summaries
            tallies[sourceIndex].rules += summaries.count
            for (lineIndex, summary) in summaries.enumerated() {
                if summary.role == .unusable {
                    if case .unusable(let reason, let example) = parsed[chunkIndex].outcomes[lineIndex] {
                        tallies[sourceIndex].skip(reason, line: example)
                    }
                    continue
                }
                let first = firstLine.insert(summary.hash, value: chunkIndex * Self.linesPerChunk + lineIndex)
                if !first.inserted {
                    let text = parsed[chunkIndex].outcomes[lineIndex].keyText
                    let (firstChunk, firstIndex) = first.stored.quotientAndRemainder(dividingBy: Self.linesPerChunk)
                    if text == parsed[firstChunk].outcomes[firstIndex].keyText
                        || !collisions.insert(text).inserted {
                        tallies[sourceIndex].skip(.duplicate, line: text)
                        continue
                    }
                }
                switch summary.role {
                case .rule:
                    networkRuleCount += Int(summary.networkRules)
                    if summary.networkRules == 0 { otherRuleCount += 1 }
                    entries.append(Entry(chunk: Int32(chunkIndex), line: Int32(lineIndex)))
                case .unusable:
                    break  // counted above
                case .skipped, .badfilter, .cosmeticException:
                    guard case .filter(let lineKey, let filter) = parsed[chunkIndex].outcomes[lineIndex] else { continue }
                    let key = lineKey.text
                    switch filter {
                    case .skipped(let reason):
                        tallies[sourceIndex].skip(reason, line: key)
                    case .badfilter(let target):
                        badfilterTargets.insert(target)
                        tallies[sourceIndex].skip(.badfilter, line: key)
                    case .cosmeticException(.failure(let error)):
                        tallies[sourceIndex].skip(error.reason, line: key)
                    case .cosmeticException(.success(let exception)):
                        var entry = cosmeticExceptions[exception.selector] ?? CosmeticFolder.Exceptions()
                        if exception.domains.isEmpty { entry.everywhere = true } else { entry.domains.append(contentsOf: exception.domains) }
                        cosmeticExceptions[exception.selector] = entry
                        tallies[sourceIndex].converted += 1
                    case .hiding, .siteException, .network:
                        break  // role .rule
                    }
                }
            }
        }

        firstLine = HashIndex64()  // the second pass allocates every rule: free the biggest leftover of the first one before it
        var rules = ConvertedRules()
        rules.network.reserveCapacity(networkRuleCount)
        rules.cosmetic.reserveCapacity(otherRuleCount)
        var carveOuts: [CarveOutUnit] = []
        var released = 0
        for position in entries {
            let chunkIndex = Int(position.chunk), lineIndex = Int(position.line)
            // Entries come in chunk order: release each chunk's results once its last entry is done.
            while released < chunkIndex {
                parsed[released] = ParsedChunk()
                released += 1
            }
            // Pass 2 is the outcome's last reader: moving it out costs no reference counting.
            var outcome = LineOutcome.taken
            swap(&outcome, &parsed[chunkIndex].outcomes[lineIndex])
            guard case .filter(let lineKey, let filter) = outcome else { continue }
            let entry = (source: chunks[chunkIndex].source, key: lineKey.text)
            let sourceID = sources[entry.source].id
            // A `$badfilter` can stand anywhere in any list, so only now is it known whether one cancels this line.
            if !badfilterTargets.isEmpty, filter.isNetwork, badfilterTargets.contains(lineKey) {
                tallies[entry.source].skip(.cancelledByBadfilter, line: entry.key)
                continue
            }
            switch filter {
            case .siteException(let site):
                switch site {
                case .success(let built):
                    rules.siteExceptions.append(SiteException(key: entry.key, scope: built.scope, json: built.json, sourceID: sourceID,
                                                                 pages: built.pages))
                    tallies[entry.source].converted += 1
                case .failure(let error):
                    tallies[entry.source].skip(error.reason, line: entry.key)
                }
            case .network(let result):
                switch result {
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
                    let pages: NetworkRule.PageCondition
                    switch built.condition {
                    case .any: pages = .any
                    case .only(let domains), .carvedOut(let domains, _): pages = .only(domains)
                    case .except(let domains): pages = .except(domains)
                    }
                    for index in 0..<built.ruleCount {
                        let rule = built.rule(index)
                        rules.network.append(NetworkRule(
                            key: index == 0 ? entry.key : entry.key + "#\(index)", kind: built.kind, json: rule.json,
                            anchorHost: built.anchorHost, sourceID: sourceID, carveOut: rule.carveOut,
                            navigation: built.navigation, pageCondition: pages, resourceTypes: rule.resourceTypes,
                            churn: parsed[chunkIndex].summaries[lineIndex].churn))
                    }
                    tallies[entry.source].converted += 1
                }
            case .hiding(.failure(let error)):
                tallies[entry.source].skip(error.reason, line: entry.key)
            case .hiding(.success(let hiding)):
                switch CosmeticFolder.fold(hiding, exceptions: cosmeticExceptions[hiding.selector]) {
                case .kept(let selector):
                    rules.cosmetic.append(selector)
                    tallies[entry.source].converted += 1
                case .skipped(let reason):
                    tallies[entry.source].skip(reason, line: entry.key)
                }
            case .skipped, .badfilter, .cosmeticException:
                break  // settled in the first pass
            }
        }
        return (rules, tallies.map(\.report))
    }

    /// The per-line work for one chunk: classify, parse and build, for every filter line (comments,
    /// headers and blank lines are dropped). Pure: reads only the chunk's own lines.
    private static func parse(_ chunk: Chunk, sources: [FilterListSource], lineRanges: [Range<Int>]) -> ParsedChunk {
        let source = sources[chunk.source]
        var outcomes: [LineOutcome] = []
        var summaries: [LineSummary] = []
        outcomes.reserveCapacity(chunk.lines.count)
        summaries.reserveCapacity(chunk.lines.count)
        var churn = chunk.churn
        var scratch: [UInt8] = []
        source.bytes.withUnsafeBufferPointer { buffer in
            for range in lineRanges[chunk.lines] {
                let line = UnsafeBufferPointer(rebasing: buffer[range])
                let kind = LineClassifier.classify(line)
                if kind == .notARule {
                    if let section = SectionChurn.sectionClass(ofLine: line) { churn = section }
                    continue
                }
                if case .unusable(let reason) = kind {
                    outcomes.append(.unusable(reason, example: String(decoding: line.prefix(200), as: UTF8.self)))
                    summaries.append(LineSummary(hash: 0, role: .unusable))
                    continue
                }
                let lineKey = LineKey(line)
                let key = lineKey.text
                let slice = source.bytes[range]
                let filter: Filter
                switch kind {
                case .cosmetic(let separatorStart):
                    switch CosmeticFilterParser.parse(slice, separatorStart: range.lowerBound + separatorStart) {
                    case .failure(let error):
                        filter = .skipped(error.reason)
                    case .success(let parsed) where parsed.isException:
                        filter = .cosmeticException(exception(parsed))
                    case .success(let parsed):
                        filter = .hiding(hidingRule(parsed, key: key, sourceID: source.id, churn: churn))
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
                            filter = .network(NetworkRuleBuilder.build(parsed, scratch: &scratch))
                        }
                    }
                }
                var summary = LineSummary(hash: lineKey.hash, role: .rule, churn: churn)
                switch filter {
                case .skipped: summary.role = .skipped
                case .badfilter: summary.role = .badfilter
                case .cosmeticException: summary.role = .cosmeticException
                case .network(.success(let built)): summary.networkRules = Int32(built.ruleCount)
                case .network(.failure), .hiding, .siteException: break
                }
                outcomes.append(.filter(key: lineKey, filter))
                summaries.append(summary)
            }
        }
        return ParsedChunk(outcomes: outcomes, summaries: summaries)
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

    /// A `#@#` exception's selector and sites (empty: everywhere), or why it cannot be folded exactly.
    private static func exception(_ filter: CosmeticFilter) -> Result<(selector: String, domains: [String]), SkipReasonError> {
        switch CSSSelectorChecker.check(filter.selector) {
        case .valid: break
        case .extendedCSS: return .failure(SkipReasonError(reason: .extendedCSS))
        case .invalid: return .failure(SkipReasonError(reason: .invalidSelector))
        }
        if !filter.excludedDomains.isEmpty { return .failure(SkipReasonError(reason: .cosmeticExceptionInexact)) }
        var domains: [String] = []
        for raw in filter.includedDomains {
            switch DomainNormalizer.normalize(raw) {
            case .domain(let domain): domains.append(domain)
            case .failure(let reason): return .failure(SkipReasonError(reason: reason))
            }
        }
        return .success((String(decoding: filter.selector, as: UTF8.self), domains))
    }

    private static func hidingRule(_ filter: CosmeticFilter, key: String, sourceID: String,
                                   churn: ChurnClass) -> Result<CosmeticFolder.HidingRule, SkipReasonError> {
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
                                                  domains: domains, sourceID: sourceID, churn: churn))
    }
}
