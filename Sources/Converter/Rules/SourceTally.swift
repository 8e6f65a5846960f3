/// Counts for one input list while it is converted; becomes its `ConversionReport.SourceReport`.
struct SourceTally {
    static let examplesPerReason = 3

    var id: String
    var lines = 0
    var rules = 0
    var converted = 0
    var sourceIndex = 0
    var skipped: [String: ConversionReport.SkipTally] = [:]
    /// Every skipped line but duplicates (whose lines join the first copy's rule instead).
    var skippedLines: [SkippedLine] = []
    /// Parts left out of converted lines (the line itself counts as converted).
    var skippedParts: [String: ConversionReport.SkipTally] = [:]

    mutating func skip(_ reason: SkipReason, line: @autoclosure () -> String, at lineNumber: Int32) {
        if reason != .duplicate {
            skippedLines.append(
                SkippedLine(origin: LineOrigin(source: sourceIndex, line: Int(lineNumber)), reason: reason))
        }
        var tally = skipped[reason.rawValue] ?? ConversionReport.SkipTally()
        tally.count += 1
        if tally.examples.count < Self.examplesPerReason { tally.examples.append(line()) }
        skipped[reason.rawValue] = tally
    }

    /// Counts a converted line, and the part of it left out if any.
    mutating func convert(skippingPart part: SkipReason?, line: @autoclosure () -> String) {
        converted += 1
        guard let part else { return }
        var tally = skippedParts[part.rawValue] ?? ConversionReport.SkipTally()
        tally.count += 1
        if tally.examples.count < Self.examplesPerReason { tally.examples.append(line()) }
        skippedParts[part.rawValue] = tally
    }

    var report: ConversionReport.SourceReport {
        ConversionReport.SourceReport(
            id: id, lines: lines, rules: rules, converted: converted, skipped: skipped,
            skippedParts: skippedParts.isEmpty ? nil : skippedParts)
    }
}
