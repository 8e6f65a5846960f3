/// Where one input line is: the index of its source in the conversion's input and its 1-based
/// line number there, packed into one integer so that carrying it costs a word per rule.
struct LineOrigin: Hashable, Comparable, Sendable {
    var packed: UInt64

    init(source: Int, line: Int) {
        packed = UInt64(truncatingIfNeeded: source) << 32 | UInt64(truncatingIfNeeded: line)
    }

    init(packed: UInt64) { self.packed = packed }

    var source: Int { Int(packed >> 32) }
    /// 1-based, as an editor shows it.
    var line: Int { Int(packed & 0xFFFF_FFFF) }

    static func < (lhs: LineOrigin, rhs: LineOrigin) -> Bool { lhs.packed < rhs.packed }
}

/// The lines every rule of one list came from, in one flat array: rule `i`'s lines are
/// `lines[ends[i-1]..<ends[i]]` (empty for rules the converter adds itself, like navigation guards).
public struct ListOrigins: Sendable, Equatable {
    var ends: [UInt32] = []
    var lines: [LineOrigin] = []

    var ruleCount: Int { ends.count }

    func lines(ofRule index: Int) -> ArraySlice<LineOrigin> {
        let start = index == 0 ? 0 : Int(ends[index - 1])
        return lines[start..<Int(ends[index])]
    }

    mutating func reserveCapacity(_ rules: Int) {
        ends.reserveCapacity(rules)
        lines.reserveCapacity(rules)
    }

    /// Ends the current rule, made from `origin` (nil: a rule the converter adds itself). The lines
    /// merged into a line's rules (`RuleOrigins.merged`) are added only when the file is written,
    /// so layout looks nothing up.
    mutating func closeRule(_ origin: LineOrigin?) {
        if let origin { lines.append(origin) }
        ends.append(UInt32(lines.count))
    }

    /// Ends a rule made of several lines (a joined hiding rule).
    mutating func closeRule<Origins: Sequence>(joining origins: Origins) where Origins.Element == LineOrigin {
        lines.append(contentsOf: origins)
        ends.append(UInt32(lines.count))
    }
}

/// One filter line the converter skipped, and why.
struct SkippedLine: Sendable, Equatable {
    var origin: LineOrigin
    var reason: SkipReason
}
