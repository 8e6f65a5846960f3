/// The input lines behind one conversion's output: for every rule of every list the ABP line(s)
/// it came from, and the filter lines that were skipped, with why. Built from numbers carried
/// through the conversion (never from the rules' text); the line texts are cut from the input
/// bytes only when the provenance file is written (`ProvenanceFile.encode`).
public struct ConversionProvenance: Sendable {
    /// The conversion's input, in order: a line origin's source index points here.
    var sources: [FilterListSource]
    /// Per output list, in list order; nil origins when the list kept earlier bytes.
    var lists: [(id: String, origins: ListOrigins?)]
    /// Lines merged into the rules of another line, by that line (`RuleOrigins.merged`).
    var merged: [LineOrigin: [LineOrigin]]
    var skipped: [SkippedLine]

    /// No provenance (an output made by hand, as in tests).
    public static let none = ConversionProvenance(sources: [], lists: [], merged: [:], skipped: [])

    public var isEmpty: Bool { sources.isEmpty }
}
