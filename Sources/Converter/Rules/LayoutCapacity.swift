/// The most rules any layout can place: `maxLists` lists of at most `chunkSize` rules (and never
/// more than WebKit compiles in one list). Rule conversion stops as soon as the input is sure to
/// need more, instead of converting everything for layout to refuse it: a hostile 50 MB list of
/// `||host^` lines held about 500 bytes a rule, 1.4 GB, before the refusal.
///
/// Sure means a lower bound on the members layout would place (each at least one rule of a list):
/// every distinct network block line without a carve-out is at least one member, and only a
/// `$badfilter` line can cancel it (one line each, and the input cannot hold more of those than it
/// has occurrences of the word `badfilter`); every distinct hiding line whose selector no `#@#`
/// exception of the input names is one member, and nothing cancels it. Layout refuses a set with
/// more members than its lists can hold, so stopping early changes no output, only when and with
/// which message conversion fails.
struct LayoutCapacity: Sendable, Equatable {
    var lists: Int
    var rulesPerList: Int
    var settingNames: ConverterConfiguration.SettingNames

    init(_ configuration: ConverterConfiguration) {
        lists = configuration.maxLists
        rulesPerList = configuration.rulesPerList
        settingNames = configuration.settingNames
    }

    var rules: Int { lists * rulesPerList }

    /// The refusal, with what was counted and how far into the input.
    func refusal(members: Int, linesRead: Int, lines: Int) -> ConversionError {
        .layoutImpossible(
            "the input has at least \(members) distinct rules (network blocks and hiding rules) in its first \(linesRead) of \(lines) lines, "
                + "but at most \(lists) lists of \(rulesPerList) rules (\(rules)) are allowed; raise \(settingNames.chunkSize) or \(settingNames.maxLists)"
        )
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

    /// The selectors of every `#@#` exception line of `source` (a folding exception always has that
    /// separator), read with the parser conversion uses; a few thousand lines in the real lists.
    static func exceptedSelectors(
        _ source: FilterListSource, lineRanges: [Range<Int>], into selectors: inout Set<String>
    ) {
        source.bytes.withUnsafeBufferPointer { buffer in
            var index = 0
            var line = 0
            while index + 3 <= buffer.count {
                // `#@#`, or `#@?#` (whose `:-abp-has` selectors are native CSS too).
                let isSeparator =
                    buffer[index] == UInt8(ascii: "#") && buffer[index + 1] == UInt8(ascii: "@")
                    && (buffer[index + 2] == UInt8(ascii: "#")
                        || (buffer[index + 2] == UInt8(ascii: "?") && index + 3 < buffer.count
                            && buffer[index + 3] == UInt8(ascii: "#")))
                guard isSeparator else {
                    index += 1
                    continue
                }
                // The line holding this separator (line ranges are in order; comments have none).
                while line < lineRanges.count, lineRanges[line].upperBound <= index { line += 1 }
                guard line < lineRanges.count, lineRanges[line].contains(index) else {
                    index += 3
                    continue
                }
                let range = lineRanges[line]
                if case .cosmetic(let separatorStart) = LineClassifier.classify(
                    UnsafeBufferPointer(rebasing: buffer[range])),
                    case .success(let filter) = CosmeticFilterParser.parse(
                        source.bytes[range], separatorStart: range.lowerBound + separatorStart),
                    filter.isException
                {
                    selectors.insert(String(decoding: filter.selector, as: UTF8.self))
                }
                index = range.upperBound
            }
        }
    }
}
