import PublicSuffix

/// Rule conversion entry point: ABP list bytes → every WebKit rule they express (`ConvertedRules`),
/// plus per-source coverage. Each filter line ends up converted (or folded) or skipped with a reason.
///
/// Two passes: the first parses every line and collects `$badfilter` targets and `#@#` exceptions,
/// which can appear anywhere (in any list); the second converts what is left, in input order.
/// The per-line work of both passes (parsing, building rule JSON) depends on nothing but the line,
/// so it runs first, in chunks spread over the cores; the passes then only combine its results in
/// input order, which keeps the output the same whatever the number of cores.
struct RuleConverter: Sendable {
    /// What the emitted rules may use.
    var target: ConversionTarget
    /// Hiding rules keep their entity sites (`name.*`), which the layout names through
    /// `EntityDomainFilters`; false leaves them out (`EntityDomains.plainPart`).
    var keepsEntityHiding: Bool
    /// Registrable domains, for party tests the target judges in the frame (nil: on the top page).
    var publicSuffixes: PublicSuffixList?

    init(target: ConversionTarget = .safari17, keepsEntityHiding: Bool = false, publicSuffixes: PublicSuffixList? = nil)
    {
        self.target = target
        self.keepsEntityHiding = keepsEntityHiding
        self.publicSuffixes = publicSuffixes
    }

    /// Lines one piece of parallel work parses: big enough to outweigh scheduling, small enough to balance two cores.
    static let linesPerChunk = 4_096
    /// Chunks parsed before pass 1 reads them and `LayoutCapacity` is checked (262,144 lines: the
    /// real lists are one wave, a hostile input is refused after a few).
    static let chunksPerWave = 64

    /// What the per-line work found for one filter line.
    enum LineOutcome {
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
    struct LineSummary {
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
        /// 1-based line number in the source.
        var line: Int32 = 0
        /// A network block without a carve-out, or a hiding rule whose selector no `#@#` exception
        /// names: at least one member of a list, unless a `$badfilter` cancels it (`LayoutCapacity`).
        var isSureMember = false
    }

    /// The per-line work's results for one chunk, parallel arrays in line order.
    struct ParsedChunk {
        var outcomes: [LineOutcome] = []
        var summaries: [LineSummary] = []
    }

    /// A line's text with its hash computed by the per-line work, so the sequential passes'
    /// duplicate and `$badfilter` lookups do not hash the whole line again.
    struct LineKey: Hashable {
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
    enum Filter {
        case skipped(SkipReason)
        case badfilter(target: LineKey)
        /// A `#@#` exception: its selector and normalized sites, or why it cannot be folded.
        case cosmeticException(Result<CosmeticFolder.ExceptionLine, SkipReasonError>)
        case hiding(Result<CosmeticFolder.HidingRule, SkipReasonError>)
        case siteException(Result<SiteExceptionBuilder.Built, SkipReasonError>)
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
    struct Entry {
        var chunk: Int32
        var line: Int32
    }

    /// A run of one source's lines, parsed as one piece of work.
    struct Chunk {
        var source: Int
        var lines: Range<Int>
        /// The churn class of the section the chunk starts in.
        var churn = ChurnClass.calm
    }

    func convert(_ sources: [FilterListSource]) -> (
        rules: ConvertedRules, reports: [ConversionReport.SourceReport], skipped: [SkippedLine]
    ) {
        do {
            return try convert(sources, limit: nil)
        } catch {
            fatalError("no limit, no refusal")
        }
    }

    /// - Throws: `.layoutImpossible` as soon as the lines read so far are sure to need more network
    ///   rules than `limit` allows (nil: convert everything).
    func convert(_ sources: [FilterListSource], limit: LayoutCapacity?) throws(ConversionError)
        -> (rules: ConvertedRules, reports: [ConversionReport.SourceReport], skipped: [SkippedLine])
    {
        var tallies = sources.indices.map { SourceTally(id: sources[$0].id, sourceIndex: $0) }
        let lineRanges = sources.map { FilterLineReader.lineRanges(in: $0.bytes) }
        for index in sources.indices { tallies[index].lines = lineRanges[index].count }
        let chunks = Self.chunks(sources, lineRanges: lineRanges)
        let badfilterBound = limit == nil ? 0 : sources.reduce(0) { $0 + LayoutCapacity.badfilterBound($1.bytes) }
        // Without a limit no hiding line is counted (nil); with one, those whose selector no exception names.
        var exceptedSelectors: Set<String>?
        if limit != nil {
            var selectors = Set<String>()
            for index in sources.indices {
                LayoutCapacity.exceptedSelectors(sources[index], lineRanges: lineRanges[index], into: &selectors)
            }
            exceptedSelectors = selectors
        }
        // Parsed in waves, each read by pass 1 at once, so a hostile input is refused before it is all held.
        var parsed = [ParsedChunk](repeating: ParsedChunk(), count: chunks.count)
        var first = FirstPass()
        for waveStart in stride(from: 0, to: chunks.count, by: Self.chunksPerWave) {
            let wave = waveStart..<min(waveStart + Self.chunksPerWave, chunks.count)
            let target = target
            let keepsEntityHiding = keepsEntityHiding
            let publicSuffixes = publicSuffixes
            let done = Parallel.map(wave.count) { offset -> ParsedChunk in
                let chunk = chunks[wave.lowerBound + offset]
                return Self.parse(
                    chunk, sources: sources, lineRanges: lineRanges[chunk.source], exceptedSelectors: exceptedSelectors,
                    target: target, keepsEntityHiding: keepsEntityHiding, publicSuffixes: publicSuffixes)
            }
            for (offset, chunk) in done.enumerated() { parsed[wave.lowerBound + offset] = chunk }
            first.read(chunks, parsed, wave: wave, tallies: &tallies)
            if let limit, first.sureMembers - badfilterBound > limit.rules {
                let lines = lineRanges.reduce(0) { $0 + $1.count }
                let read = chunks[..<wave.upperBound].reduce(0) { $0 + $1.lines.count }
                throw limit.refusal(members: first.sureMembers - badfilterBound, linesRead: read, lines: lines)
            }
        }
        first.firstLine = HashIndex64()
        first.collisions = []
        var second = SecondPass(first)
        var released = 0
        for position in first.entries {
            let chunkIndex = Int(position.chunk)
            let lineIndex = Int(position.line)
            // Entries come in chunk order: release each chunk's results once its last entry is done.
            while released < chunkIndex {
                parsed[released] = ParsedChunk()
                released += 1
            }
            // Pass 2 is the outcome's last reader: moving it out costs no reference counting.
            var outcome = LineOutcome.taken
            swap(&outcome, &parsed[chunkIndex].outcomes[lineIndex])
            guard case .filter(let lineKey, let filter) = outcome else { continue }
            let source = chunks[chunkIndex].source
            let summary = parsed[chunkIndex].summaries[lineIndex]
            second.add(
                filter, lineKey: lineKey, sourceID: sources[source].id, churn: summary.churn,
                origin: LineOrigin(source: source, line: Int(summary.line)), tally: &tallies[source])
        }
        return (second.rules, tallies.map(\.report), tallies.flatMap(\.skippedLines))
    }

    /// Splits every source's lines into chunks of `linesPerChunk`, each with the churn class of the section it starts in.
    private static func chunks(_ sources: [FilterListSource], lineRanges: [[Range<Int>]]) -> [Chunk] {
        var chunks: [Chunk] = []
        for (sourceIndex, ranges) in lineRanges.enumerated() {
            let starts = Array(stride(from: 0, to: ranges.count, by: Self.linesPerChunk))
            let classes = SectionChurn.classes(at: starts, lines: ranges, bytes: sources[sourceIndex].bytes)
            for (start, churn) in zip(starts, classes) {
                chunks.append(
                    Chunk(
                        source: sourceIndex, lines: start..<min(start + Self.linesPerChunk, ranges.count), churn: churn)
                )
            }
        }
        return chunks
    }
}
