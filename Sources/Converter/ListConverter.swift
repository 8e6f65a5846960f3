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
    public func convert(_ sources: [FilterListSource], previousLayout: [UInt8]? = nil) throws -> ConversionOutput {
        let (rules, reports) = RuleConverter().convert(sources)
        return try assemble(rules, sourceReports: reports, previousLayout: previousLayout)
    }

    /// Lays out already converted rules, serializes each list and fills the report.
    func assemble(_ rules: ConvertedRules, sourceReports: [ConversionReport.SourceReport],
                  previousLayout: [UInt8]?) throws -> ConversionOutput {
        let previous = try previousLayout.map(LayoutState.decode)
        guard !(rules.network.isEmpty && rules.cosmetic.isEmpty) else { throw ConversionError.nothingToConvert }
        let layout = try ListLayout(configuration: configuration).layOut(rules, previous: previous)
        let lists = layout.lists.map { RuleList(id: $0.id, json: JSONText.array(of: $0.rules), ruleCount: $0.rules.count) }
        let report = ConversionReport(
            sources: sourceReports,
            lists: lists.map { ConversionReport.ListReport(id: $0.id, rules: $0.ruleCount, bytes: $0.json.count) },
            freshLayout: layout.isFresh)
        return ConversionOutput(lists: lists, report: report, layoutState: layout.state.encoded())
    }
}
