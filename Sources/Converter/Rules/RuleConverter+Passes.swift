/// The two sequential passes of `RuleConverter`, which combine the per-line results in input order.
extension RuleConverter {
    /// Pass 1: drops duplicate lines, settles the lines that are no rule of their own (skips,
    /// `$badfilter`, `#@#` exceptions) and lists the rest for pass 2.
    struct FirstPass {
        /// The lines pass 2 converts, in input order.
        var entries: [Entry] = []
        var badfilterTargets = Set<LineKey>()
        var cosmeticExceptions: [String: CosmeticFolder.Exceptions] = [:]
        /// Later copies of a line, by the first copy's origin: the first copy's rules list them too.
        var duplicates: [LineOrigin: [LineOrigin]] = [:]
        var networkRuleCount = 0
        /// Hiding rules and site exceptions, at most.
        var otherRuleCount = 0
        /// Distinct lines with `LineSummary.isSureMember`.
        var sureMembers = 0
        /// Duplicates: the first line of each hash, by position (chunk × linesPerChunk + line); the texts are
        /// compared only when a hash repeats, and different lines of one hash are told apart by text.
        /// Freed by `SecondPass.init`, before pass 2 allocates every rule.
        var firstLine = HashIndex64()
        var collisions = Set<String>()

        /// Reads the chunks of `wave` (in order, after every earlier wave).
        mutating func read(_ chunks: [Chunk], _ parsed: [ParsedChunk], wave: Range<Int>, tallies: inout [SourceTally]) {
            entries.reserveCapacity(entries.count + parsed[wave].reduce(0) { $0 + $1.summaries.count })
            firstLine.reserveCapacity(entries.capacity)
            for chunkIndex in wave {
                let sourceIndex = chunks[chunkIndex].source
                let summaries = parsed[chunkIndex].summaries
                tallies[sourceIndex].rules += summaries.count
                for (lineIndex, summary) in summaries.enumerated() {
                    if summary.role == .unusable {
                        if case .unusable(let reason, let example) = parsed[chunkIndex].outcomes[lineIndex] {
                            tallies[sourceIndex].skip(reason, line: example, at: summary.line)
                        }
                        continue
                    }
                    let first = firstLine.insert(
                        summary.hash, value: chunkIndex * RuleConverter.linesPerChunk + lineIndex)
                    if !first.inserted {
                        let text = parsed[chunkIndex].outcomes[lineIndex].keyText
                        let (firstChunk, firstIndex) = first.stored.quotientAndRemainder(
                            dividingBy: RuleConverter.linesPerChunk)
                        if text == parsed[firstChunk].outcomes[firstIndex].keyText {
                            let original = LineOrigin(
                                source: chunks[firstChunk].source,
                                line: Int(parsed[firstChunk].summaries[firstIndex].line))
                            duplicates[original, default: []].append(
                                LineOrigin(source: sourceIndex, line: Int(summary.line)))
                            tallies[sourceIndex].skip(.duplicate, line: text, at: summary.line)
                            continue
                        }
                        if !collisions.insert(text).inserted {
                            // A repeat of a line whose hash another line had first: its first copy's rules do not know it.
                            tallies[sourceIndex].skip(.duplicate, line: text, at: summary.line)
                            continue
                        }
                    }
                    if summary.role == .rule {
                        if summary.isSureMember { sureMembers += 1 }
                        networkRuleCount += Int(summary.networkRules)
                        if summary.networkRules == 0 { otherRuleCount += 1 }
                        entries.append(Entry(chunk: Int32(chunkIndex), line: Int32(lineIndex)))
                    } else if case .filter(let lineKey, let filter) = parsed[chunkIndex].outcomes[lineIndex] {
                        settle(
                            filter, key: lineKey.text, origin: LineOrigin(source: sourceIndex, line: Int(summary.line)),
                            tally: &tallies[sourceIndex])
                    }
                }
            }
        }

        /// Counts a skipped line, or records a `$badfilter` target or a `#@#` exception.
        private mutating func settle(_ filter: Filter, key: String, origin: LineOrigin, tally: inout SourceTally) {
            let line = Int32(origin.line)
            switch filter {
            case .skipped(let reason):
                tally.skip(reason, line: key, at: line)
            case .badfilter(let target):
                badfilterTargets.insert(target)
                tally.skip(.badfilter, line: key, at: line)
            case .cosmeticException(.failure(let error)):
                tally.skip(error.reason, line: key, at: line)
            case .cosmeticException(.success(let exception)):
                var entry = cosmeticExceptions[exception.selector] ?? CosmeticFolder.Exceptions()
                if exception.everywhere {
                    entry.everywhere = true
                } else {
                    entry.domains.append(contentsOf: exception.domains)
                }
                if exception.entityHosts { entry.entityHosts = true }
                entry.lines.append((origin, exception.domains))
                cosmeticExceptions[exception.selector] = entry
                tally.convert(skippingPart: exception.skippedPart, line: key)
            case .hiding, .siteException, .network:
                break  // role .rule: pass 2
            }
        }
    }

    /// Pass 2: converts the lines pass 1 listed, in input order, now that every `$badfilter`
    /// target and `#@#` exception is known.
    struct SecondPass {
        private(set) var rules = ConvertedRules()
        private let badfilterTargets: Set<LineKey>
        private let cosmeticExceptions: [String: CosmeticFolder.Exceptions]
        private var carveOuts: [CarveOutUnit] = []

        init(_ first: FirstPass) {
            badfilterTargets = first.badfilterTargets
            cosmeticExceptions = first.cosmeticExceptions
            rules.origins.merged = first.duplicates
            rules.network.reserveCapacity(first.networkRuleCount)
            rules.cosmetic.reserveCapacity(first.otherRuleCount)
        }

        mutating func add(
            _ filter: Filter, lineKey: LineKey, sourceID: String, churn: ChurnClass, origin: LineOrigin,
            tally: inout SourceTally
        ) {
            let key = lineKey.text
            let line = Int32(origin.line)
            // A `$badfilter` can stand anywhere in any list, so only now is it known whether one cancels this line.
            if !badfilterTargets.isEmpty, filter.isNetwork, badfilterTargets.contains(lineKey) {
                tally.skip(.cancelledByBadfilter, line: key, at: line)
                return
            }
            switch filter {
            case .siteException(.success(let built)):
                rules.siteExceptions.append(
                    SiteException(
                        key: key, scope: built.scope, json: built.json, sourceID: sourceID,
                        pages: built.pages, pagePattern: built.pagePattern))
                rules.origins.siteExceptions.append(origin)
                tally.convert(skippingPart: built.skippedPart, line: key)
            case .network(.success(let built)):
                if addNetwork(built, key: key, sourceID: sourceID, churn: churn, origin: origin) {
                    tally.convert(skippingPart: built.skippedPart, line: key)
                } else {
                    tally.skip(.mixedDomainConflict, line: key, at: line)
                }
            case .hiding(.success(let hiding)):
                let exceptions = cosmeticExceptions[hiding.selector]
                switch CosmeticFolder.fold(hiding, exceptions: exceptions) {
                case .kept(let selector):
                    rules.cosmetic.append(selector)
                    rules.origins.cosmetic.append(origin)
                    if let exceptions {
                        let folded = exceptions.lines(foldedInto: hiding.domains)
                        if !folded.isEmpty { rules.origins.merged[origin, default: []] += folded }
                    }
                    tally.convert(skippingPart: hiding.skippedPart, line: key)
                case .skipped(let reason):
                    tally.skip(reason, line: key, at: line)
                }
            case .siteException(.failure(let error)), .network(.failure(let error)), .hiding(.failure(let error)):
                tally.skip(error.reason, line: key, at: line)
            case .skipped, .badfilter, .cosmeticException:
                break  // settled in pass 1
            }
        }

        /// Appends a network filter's WebKit rules; false (nothing appended) when its carve-out
        /// conflicts with an earlier one.
        private mutating func addNetwork(
            _ built: NetworkRuleBuilder.Built, key: String, sourceID: String, churn: ChurnClass,
            origin: LineOrigin
        ) -> Bool {
            if case .carvedOut(let included, let excluded) = built.condition {
                let unit = CarveOutUnit(included: included, excluded: excluded)
                if carveOuts.contains(where: { $0.conflicts(with: unit) || unit.conflicts(with: $0) }) { return false }
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
                rules.network.append(
                    NetworkRule(
                        key: index == 0 ? key : key + "#\(index)", kind: built.kind, json: rule.json,
                        anchorHost: built.anchorHost, sourceID: sourceID, carveOut: rule.carveOut,
                        navigation: built.navigation, pageCondition: pages, judgedInFrame: rule.judgedInFrame,
                        resourceTypes: rule.resourceTypes, churn: churn))
                rules.origins.network.append(origin)
            }
            return true
        }
    }

    /// A block with a carve-out exception, kept to prove no other such unit's exception cancels it.
    struct CarveOutUnit {
        var included: [String]
        var excluded: [String]

        /// True when `later`'s carve-out exception could cancel this (earlier) unit's block on a page where
        /// it applies: an excluded site of `later` overlaps an included site of this one without being excluded here too.
        func conflicts(with later: CarveOutUnit) -> Bool {
            later.excluded.contains { exclude in
                included.contains {
                    DomainNormalizer.isSameOrSubdomain(exclude, of: $0)
                        || DomainNormalizer.isSameOrSubdomain($0, of: exclude)
                } && !excluded.contains { DomainNormalizer.isSameOrSubdomain(exclude, of: $0) }
            }
        }
    }
}
