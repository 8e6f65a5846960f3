/// What a conversion did with every input line: the operator's view of coverage.
public struct ConversionReport: Codable, Sendable, Equatable {
    /// A skip reason's tally, with a few example lines for a human to look at.
    public struct SkipTally: Codable, Sendable, Equatable {
        public var count: Int
        public var examples: [String]

        public init(count: Int = 0, examples: [String] = []) {
            self.count = count
            self.examples = examples
        }
    }

    /// Per input list.
    public struct SourceReport: Codable, Sendable, Equatable {
        public var id: String
        /// Physical lines in the input.
        public var lines: Int
        /// Filter lines (not comments, headers or blanks).
        public var rules: Int
        /// Filter lines that produced WebKit rules (or folded into one).
        public var converted: Int
        /// Filter lines skipped, by reason name.
        public var skipped: [String: SkipTally]
        /// Parts of converted lines left out, by reason name (such as the `name.*` sites of a rule whose
        /// other sites were converted); each line is also counted in `converted`. Absent when none.
        public var skippedParts: [String: SkipTally]?
    }

    /// Per output list.
    public struct ListReport: Codable, Sendable, Equatable {
        public var id: String
        public var rules: Int
        public var bytes: Int
    }

    public var sources: [SourceReport]
    public var lists: [ListReport]
    /// True when layout ignored the previous state (first run, changed limits, or a limit forced a
    /// rebuild): every list changed, so every device downloads and recompiles the whole set.
    public var freshLayout: Bool

    public init(sources: [SourceReport], lists: [ListReport], freshLayout: Bool = true) {
        self.sources = sources
        self.lists = lists
        self.freshLayout = freshLayout
    }
}
