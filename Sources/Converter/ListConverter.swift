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
    public func convert(_ sources: consuming [FilterListSource], previousLayout: [UInt8]? = nil,
                        previousLists: [String: [UInt8]] = [:]) throws -> ConversionOutput {
        // Section churn is one more pass over the bytes, independent of the rules: it runs on the
        // cores together with the rules' per-line work.
        var input = consume sources
        var churn = SectionChurn()
        let (rules, reports) = RuleConverter().convert(input, alongside: { churn = SectionChurn(input) })
        input = []  // the input bytes are not needed any more: free them before layout
        return try assemble(rules, sourceReports: reports, previousLayout: previousLayout, previousLists: previousLists,
                            churn: churn)
    }

    /// Lays out already converted rules, serializes each list and fills the report.
    func assemble(_ rules: consuming ConvertedRules, sourceReports: [ConversionReport.SourceReport],
                  previousLayout: [UInt8]?, previousLists: [String: [UInt8]] = [:],
                  churn: SectionChurn = SectionChurn()) throws -> ConversionOutput {
        let previous = try previousLayout.map(LayoutState.decode)
        guard !(rules.network.isEmpty && rules.cosmetic.isEmpty) else { throw ConversionError.nothingToConvert }
        var layout = try ListLayout(configuration: configuration).layOut(rules, previous: previous, previousLists: previousLists, churn: churn)
        let state = layout.state
        let isFresh = layout.isFresh
        let laidOut = layout.lists
        layout.lists = []
        let finished = finish(laidOut, previousLists: previousLists, state: state, releasing: rules)
        if let problem = finished.problem { throw problem }
        let report = ConversionReport(
            sources: sourceReports,
            lists: finished.lists.map { ConversionReport.ListReport(id: $0.id, rules: $0.ruleCount, bytes: $0.json.count) },
            freshLayout: isFresh)
        return ConversionOutput(lists: finished.lists, report: report, layoutState: finished.state)
    }

    /// What `finish` produced.
    private struct Finished {
        var lists: [RuleList]
        var state: [UInt8]
        /// The first list (in list order) that failed validation, as the error to throw.
        var problem: ConversionError?
    }

    /// Serializes every list and validates the new ones, the lists spread over the cores (with the
    /// layout state's encoding as one more piece of work). Each list's rule objects are released as
    /// soon as its JSON is built, so the rules and the JSON are not both held in full; `rules`
    /// (keys, selectors, rules no list holds) is released there too, off the sequential path.
    private func finish(_ laidOut: consuming [LaidOutList], previousLists: [String: [UInt8]], state: LayoutState,
                        releasing rules: consuming ConvertedRules) -> Finished {
        let count = laidOut.count
        var lists = [RuleList?](repeating: nil, count: count)
        var problems = [[WebKitListValidator.Problem]](repeating: [], count: count)
        var encodedState: [UInt8] = []
        let validates = configuration.validatesLists
        laidOut.withUnsafeMutableBufferPointer { input in
            lists.withUnsafeMutableBufferPointer { listSlots in
                problems.withUnsafeMutableBufferPointer { problemSlots in
                    let input = input.baseAddress!, listBase = listSlots.baseAddress!, problemBase = problemSlots.baseAddress!
                    withUnsafeMutablePointer(to: &encodedState) { stateSlot in
                        // Each iteration touches only its own slots.
                        // Iteration 0, handed out first, frees the rules while the lists' JSON is
                        // being allocated; then the lists follow.
                        DispatchQueue.concurrentPerform(iterations: count + 1) { iteration in
                            guard iteration > 0 else {
                                rules = ConvertedRules()
                                stateSlot.pointee = state.encoded()
                                return
                            }
                            let index = iteration - 1
                            let json = input[index].json
                            let list = RuleList(id: input[index].id, json: json, ruleCount: input[index].ruleCount)
                            input[index].rules = []
                            input[index].kept = nil
                            // A list republished byte for byte was validated when it was first published.
                            if validates, previousLists[list.id] != json {
                                problemBase[index] = WebKitListValidator().problems(in: json)
                            }
                            listBase[index] = list
                        }
                    }
                }
            }
        }
        var problem: ConversionError?
        if let index = problems.firstIndex(where: { !$0.isEmpty }) {
            let shown = problems[index].prefix(3).map(\.description).joined(separator: "; ")
            problem = .invalidList("\(lists[index]!.id): \(problems[index].count) problems, first: \(shown)")
        }
        return Finished(lists: lists.map { $0! }, state: encodedState, problem: problem)
    }
}
