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
    public func convert(_ sources: [FilterListSource], previousLayout: [UInt8]? = nil,
                        previousLists: [String: [UInt8]] = [:]) throws -> ConversionOutput {
        let (rules, reports) = RuleConverter().convert(sources)
        return try assemble(rules, sourceReports: reports, previousLayout: previousLayout, previousLists: previousLists,
                            churn: SectionChurn(sources))
    }

    /// Lays out already converted rules, serializes each list and fills the report.
    func assemble(_ rules: ConvertedRules, sourceReports: [ConversionReport.SourceReport],
                  previousLayout: [UInt8]?, previousLists: [String: [UInt8]] = [:],
                  churn: SectionChurn = SectionChurn()) throws -> ConversionOutput {
        let previous = try previousLayout.map(LayoutState.decode)
        guard !(rules.network.isEmpty && rules.cosmetic.isEmpty) else { throw ConversionError.nothingToConvert }
        let layout = try ListLayout(configuration: configuration).layOut(rules, previous: previous, previousLists: previousLists, churn: churn)
        let lists = layout.lists.map { RuleList(id: $0.id, json: $0.json, ruleCount: $0.ruleCount) }
        if configuration.validatesLists {
            // A list republished byte for byte was validated when it was first published.
            try validate(lists.filter { previousLists[$0.id] != $0.json })
        }
        let report = ConversionReport(
            sources: sourceReports,
            lists: lists.map { ConversionReport.ListReport(id: $0.id, rules: $0.ruleCount, bytes: $0.json.count) },
            freshLayout: layout.isFresh)
        return ConversionOutput(lists: lists, report: report, layoutState: layout.state.encoded())
    }

    /// Runs `WebKitListValidator` over every list, the lists spread over the cores.
    private func validate(_ lists: [RuleList]) throws {
        guard !lists.isEmpty else { return }
        var problems = [[WebKitListValidator.Problem]](repeating: [], count: lists.count)
        problems.withUnsafeMutableBufferPointer { slots in
            let base = slots.baseAddress!
            DispatchQueue.concurrentPerform(iterations: lists.count) { index in
                // Each iteration writes only its own slot.
                base[index] = WebKitListValidator().problems(in: lists[index].json)
            }
        }
        for (list, found) in zip(lists, problems) where !found.isEmpty {
            let shown = found.prefix(3).map(\.description).joined(separator: "; ")
            throw ConversionError.invalidList("\(list.id): \(found.count) problems, first: \(shown)")
        }
    }
}
