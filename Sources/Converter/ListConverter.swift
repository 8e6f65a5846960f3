import Dispatch

/// Entry point: parse every source, convert rules, lay them out into lists.
public struct ListConverter: Sendable {
    public var configuration: ConverterConfiguration

    public init(configuration: ConverterConfiguration = ConverterConfiguration()) {
        self.configuration = configuration
    }

    /// Converts the sources. `previousLayout` is the `layoutState` of the last published set, if
    /// any: with it, rules that did not change keep their lists and unchanged lists keep their bytes.
    /// - Throws: `ConversionError.invalidPreviousLayout` when `previousLayout` is not a layout state,
    ///   `.nothingToConvert` when no source yields a rule, `.layoutImpossible` when the limits cannot hold.
    /// - Parameter previousLists: the previous set's list bytes by id (optional); with them a list
    ///   that only lost removed rules may keep its bytes (`ConverterConfiguration.removalGraceRuns`).
    public func convert(
        _ sources: consuming [FilterListSource], previousLayout: [UInt8]? = nil,
        previousLists: [String: [UInt8]] = [:]
    ) throws -> ConversionOutput {
        let input = consume sources
        let (rules, reports, skipped) = try RuleConverter(
            target: configuration.target, keepsEntityHiding: configuration.namesEntityDomainsInHiding,
            publicSuffixes: configuration.publicSuffixes
        ).convert(
            input, limit: LayoutCapacity(configuration))
        // The input bytes stay for provenance: its line texts are slices of them, cut only when written.
        return try assemble(
            rules, sourceReports: reports, previousLayout: previousLayout, previousLists: previousLists,
            sources: input, skipped: skipped)
    }

    /// Lays out already converted rules, serializes each list and fills the report.
    func assemble(
        _ rules: consuming ConvertedRules, sourceReports: [ConversionReport.SourceReport],
        previousLayout: [UInt8]?, previousLists: [String: [UInt8]] = [:],
        sources: [FilterListSource] = [], skipped: [SkippedLine] = []
    ) throws -> ConversionOutput {
        let previous = try previousLayout.map(LayoutState.decode)
        guard !(rules.network.isEmpty && rules.cosmetic.isEmpty) else { throw ConversionError.nothingToConvert }
        var layout = try ListLayout(configuration: configuration, namesEntities: rules.hasEntitySites).layOut(
            rules, previous: previous, previousLists: previousLists)
        let state = layout.state
        let isFresh = layout.isFresh
        let laidOut = layout.lists
        let input = layout.input
        layout.lists = []
        layout.input = nil
        // A list that keeps last run's bytes (`DeferredRemoval`) has no per-rule lines for them.
        let origins = laidOut.map { $0.kept == nil ? $0.origins : nil }
        let merged = rules.origins.merged
        let finished = finish(laidOut, previousLists: previousLists, state: state, releasing: rules, input)
        if let problem = finished.problem { throw problem }
        let report = ConversionReport(
            sources: sourceReports,
            lists: finished.lists.map {
                ConversionReport.ListReport(id: $0.id, rules: $0.ruleCount, bytes: $0.json.count)
            },
            freshLayout: isFresh)
        let provenance = ConversionProvenance(
            sources: sources, lists: zip(finished.lists, origins).map { ($0.id, $1) },
            merged: merged, skipped: skipped)
        return ConversionOutput(
            lists: finished.lists, report: report, layoutState: finished.state, provenance: provenance)
    }

    /// What `finish` produced.
    private struct Finished {
        var lists: [RuleList]
        var state: [UInt8]
        /// The first list (in list order) that failed validation, as the error to throw.
        var problem: ConversionError?
    }

    /// Serializes every list and validates the new ones, the lists spread over the cores (with the
    /// layout state's encoding as one more piece of work), then hands `rules` and `layoutInput` to
    /// `releaseInBackground`.
    private func finish(
        _ laidOut: consuming [LaidOutList], previousLists: [String: [UInt8]], state: LayoutState,
        releasing rules: consuming ConvertedRules, _ layoutInput: consuming LayoutInput?
    ) -> Finished {
        enum Piece {
            case state([UInt8])
            case list(RuleList, problems: [WebKitListValidator.Problem])
        }
        let validates = configuration.validatesLists
        let pieces = laidOut.withUnsafeMutableBufferPointer { input in
            Parallel.map(input.count + 1) { piece -> Piece in
                guard piece > 0 else { return .state(state.encoded()) }
                // Each piece touches only its own list.
                let index = piece - 1
                let json = input[index].json
                let list = RuleList(id: input[index].id, json: json, ruleCount: input[index].ruleCount)
                input[index].rules = []
                input[index].origins = ListOrigins()
                input[index].kept = nil
                // A list republished byte for byte was validated when it was first published.
                let problems =
                    validates && previousLists[list.id] != json ? WebKitListValidator().problems(in: json) : []
                return .list(list, problems: problems)
            }
        }
        Self.releaseInBackground(Retired(rules: rules, input: layoutInput))
        var lists: [RuleList] = []
        var problems: [[WebKitListValidator.Problem]] = []
        var encodedState: [UInt8] = []
        for piece in pieces {
            switch piece {
            case .state(let bytes): encodedState = bytes
            case .list(let list, let found):
                lists.append(list)
                problems.append(found)
            }
        }
        var problem: ConversionError?
        if let index = problems.firstIndex(where: { !$0.isEmpty }) {
            let shown = problems[index].prefix(3).map(\.description).joined(separator: "; ")
            problem = .invalidList("\(lists[index].id): \(problems[index].count) problems, first: \(shown)")
        }
        return Finished(lists: lists, state: encodedState, problem: problem)
    }

    /// What conversion worked from: about half a million small allocations (rule JSON, keys, hosts, selectors).
    private final class Retired: @unchecked Sendable {
        // Written here, then only by the one background block `releaseInBackground` hands it to.
        var rules: ConvertedRules?
        var input: LayoutInput?

        init(rules: consuming ConvertedRules, input: consuming LayoutInput?) {
            self.rules = rules
            self.input = input
        }
    }

    /// Frees `retired` on a background queue, once the lists are built: nothing waits for it.
    /// Freeing it next to the threads that build and fault in the lists' JSON contended with them
    /// (allocator and page-table locks) and made `finish` about 40 ms slower on the 2025-10 lists
    /// (65 against 27 ms), and a process that exits right after converting does not pay for it.
    private static func releaseInBackground(_ retired: Retired) {
        DispatchQueue.global(qos: .utility).async {
            // Emptied here, so the frees happen on this thread whoever drops the box last.
            retired.rules = nil
            retired.input = nil
        }
    }
}
