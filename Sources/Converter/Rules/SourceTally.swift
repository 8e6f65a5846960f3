/// Counts for one input list while it is converted; becomes its `ConversionReport.SourceReport`.
struct SourceTally {
    static let examplesPerReason = 3

    var id: String
    var lines = 0
    var rules = 0
    var converted = 0
    var skipped: [String: ConversionReport.SkipTally] = [:]

    mutating func skip(_ reason: SkipReason, line: @autoclosure () -> String) {
        var tally = skipped[reason.rawValue] ?? ConversionReport.SkipTally()
        tally.count += 1
        if tally.examples.count < Self.examplesPerReason { tally.examples.append(line()) }
        skipped[reason.rawValue] = tally
    }

    var report: ConversionReport.SourceReport {
        ConversionReport.SourceReport(id: id, lines: lines, rules: rules, converted: converted, skipped: skipped)
    }
}
