/// The most network blocks any layout can hold: `maxLists` lists of at most `chunkSize` rules (and
/// never more than WebKit compiles in one list). Rule conversion stops as soon as the input is sure
/// to need more, instead of converting everything for layout to refuse it: a hostile 50 MB list of
/// `||host^` lines held about 500 bytes a rule, 1.4 GB, before the refusal.
///
/// Sure means a lower bound on what layout would place: every distinct block line without a
/// carve-out becomes at least one rule, each a member of a network list; only a `$badfilter` line
/// can cancel such a line (one each), and the input cannot hold more of those than it has
/// occurrences of the word `badfilter`. Layout refuses a set with more members than the lists
/// can hold, so stopping early changes no output, only when and with which message it fails.
struct NetworkRuleLimit: Sendable, Equatable {
    var lists: Int
    var rulesPerList: Int

    init(_ configuration: ConverterConfiguration) {
        lists = configuration.maxLists
        rulesPerList = min(configuration.chunkSize, ListLayout.webKitRuleLimit)
    }

    var rules: Int { lists * rulesPerList }

    /// The refusal, with what was counted and how far into the input.
    func refusal(blockLines: Int, badfilterBound: Int, linesRead: Int, lines: Int) -> ConversionError {
        .layoutImpossible(
            "the input has at least \(blockLines - badfilterBound) distinct network block rules in its first \(linesRead) of \(lines) lines, "
            + "but at most \(lists) lists of \(rulesPerList) rules (\(rules)) are allowed; raise the chunk size or the list limit")
    }

    /// Occurrences of `badfilter` in any letter case: at least the number of `$badfilter` lines.
    static func badfilterBound(_ bytes: [UInt8]) -> Int {
        let word = Array("badfilter".utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            guard buffer.count >= word.count else { return 0 }
            var found = 0
            var index = 0
            let last = buffer.count - word.count
            while index <= last {
                if buffer[index] | 0x20 == UInt8(ascii: "b") {
                    var offset = 1
                    while offset < word.count, buffer[index + offset] | 0x20 == word[offset] { offset += 1 }
                    if offset == word.count { found += 1 }
                }
                index += 1
            }
            return found
        }
    }
}
