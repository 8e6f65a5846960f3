/// Lets a stable list keep yesterday's bytes when today's version differs only by rules that were
/// removed upstream, for at most `graceRuns` runs in a row.
///
/// Upstream lists drop a few old rules every day (mostly dead ad hosts), each in a random stable
/// list; applying every removal at once would change several lists a day and make every device
/// download and recompile them. Deferring pure removals batches them: a list is rewritten when it
/// changes for another reason anyway (an added rule or exception), or when its oldest pending
/// removal has waited `graceRuns` runs. The cost is that a removed rule may act for that long after
/// upstream dropped it. Additions, edits and new exceptions are never deferred.
struct DeferredRemoval: Sendable {
    var graceRuns: Int

    /// The previous bytes to publish again, or nil when the list must be rewritten.
    /// - Parameters:
    ///   - current: today's rules of the list.
    ///   - previous: the JSON bytes published for the same list id last time.
    ///   - deferredRuns: how many runs in a row `previous` has already been kept.
    func keep(current: [[UInt8]], previous: [UInt8], deferredRuns: Int) -> (bytes: [UInt8], rules: Int)? {
        guard deferredRuns < graceRuns else { return nil }
        let lines = DeferredRemoval.ruleLines(previous)
        guard lines.count > current.count else { return nil }
        // Every current rule must appear in the previous list, in the same order: then the
        // previous list is today's list plus removed rules only.
        var cursor = 0
        for rule in current {
            while cursor < lines.count, !lines[cursor].elementsEqual(rule) { cursor += 1 }
            guard cursor < lines.count else { return nil }
            cursor += 1
        }
        return (previous, lines.count)
    }

    /// The rule objects of a list written by `JSONText.array(of:)`: one a line, `,`-terminated.
    static func ruleLines(_ json: [UInt8]) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        for var line in json.split(separator: 0x0a, omittingEmptySubsequences: true) {
            if line.last == UInt8(ascii: ",") { line = line.dropLast() }
            guard line.first == UInt8(ascii: "{") else { continue }  // `[` and `]`
            out.append(line)
        }
        return out
    }
}
