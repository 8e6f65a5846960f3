/// Entry point: parse every source, convert rules, lay them out into lists.
public struct ListConverter: Sendable {
    public var configuration: ConverterConfiguration

    public init(configuration: ConverterConfiguration = ConverterConfiguration()) {
        self.configuration = configuration
    }

    /// Converts the sources. `previousLayout` is the `layoutState` of the last published set, if any.
    public func convert(_ sources: [FilterListSource], previousLayout: [UInt8]? = nil) throws -> ConversionOutput {
        // Placeholder until the real pipeline lands: one tiny valid list so the server can run.
        let json = Array(#"[{"trigger":{"url-filter":"^https?://+([^:/]+\\.)?example-ads\\.invalid[/:]"},"action":{"type":"block"}}]"#.utf8)
        let list = RuleList(id: "network-00", json: json, ruleCount: 1)
        let report = ConversionReport(sources: sources.map {
            ConversionReport.SourceReport(id: $0.id, lines: 0, rules: 0, converted: 0, skipped: [:])
        }, lists: [ConversionReport.ListReport(id: list.id, rules: 1, bytes: json.count)])
        return ConversionOutput(lists: [list], report: report, layoutState: Array("{}".utf8))
    }
}
