/// Looks up the ABP lines behind given rules of one converted list, straight from a conversion's
/// provenance: what the publish gate needs to turn rules WebKit rejects back into lines to drop.
extension ConversionProvenance {
    /// The input lines (merged duplicates included) behind `rules` (indices into list `id`'s JSON
    /// array), each once, in input order. Nil when the list is unknown or kept earlier bytes (no
    /// per-rule lines); rules the converter added itself contribute no line.
    public func sourceLines(ofList id: String, rules: [Int]) -> [SourceLine]? {
        guard let entry = lists.first(where: { $0.id == id }), let origins = entry.origins else { return nil }
        var found = Set<LineOrigin>()
        for rule in rules where rule >= 0 && rule < origins.ruleCount {
            for origin in origins.lines(ofRule: rule) {
                found.insert(origin)
                for other in merged[origin] ?? [] { found.insert(other) }
            }
        }
        var ranges: [Int: [Range<Int>]] = [:]
        return found.sorted().compactMap { origin in
            guard origin.source < sources.count else { return nil }
            let source = sources[origin.source]
            let lineRanges = ranges[origin.source] ?? FilterLineReader.lineRanges(in: source.bytes)
            ranges[origin.source] = lineRanges
            guard origin.line >= 1, origin.line <= lineRanges.count else { return nil }
            let text = String(decoding: source.bytes[lineRanges[origin.line - 1]], as: UTF8.self)
            return SourceLine(upstream: source.id, line: origin.line, text: text)
        }
    }
}
