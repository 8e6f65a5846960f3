import JSONBytes

/// Checks a whole content-blocker list (JSON bytes) the way WebKit's ContentExtensions parser would,
/// so a list that would be rejected, or would lose rules silently, is caught before it is published.
/// Rules follow /work/shared/docs/webkit-format.md (measured on WebKitGTK 2.50).
public struct WebKitListValidator: Sendable {
    /// One reason WebKit would reject the list or drop/ignore a rule.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// Index of the rule in the array, nil for list-level problems.
        public var ruleIndex: Int?
        public var message: String

        public init(ruleIndex: Int?, message: String) {
            self.ruleIndex = ruleIndex
            self.message = message
        }

        public var description: String { ruleIndex.map { "rule \($0): \(message)" } ?? message }
    }

    public init() {}

    /// Every problem in the list; empty means WebKit compiles it with all its rules.
    /// A UTF-8 pass (ASCII a word at a time), then one pass over the JSON: strings are checked in place
    /// (escaped ones decoded into one reused buffer), and Strings are built only for problem messages.
    public func problems(in json: [UInt8]) -> [Problem] {
        json.withUnsafeBufferPointer { buffer in
            guard UTF8Validation.isValid(buffer) else {
                return [
                    Problem(
                        ruleIndex: nil, message: "the list is not valid UTF-8 (WebKit: Failed to parse the JSON String)"
                    )
                ]
            }
            return JSONCursor.reading(buffer) { Self.listProblems(&$0) }
        }
    }

    /// Problems of one rule object given as JSON bytes (for checking rules before they are joined into a list).
    public func problems(inRule json: [UInt8]) -> [String] {
        problems(in: [UInt8(ascii: "[")] + json + [UInt8(ascii: "]")]).map(\.message)
    }

    private static func listProblems(_ cursor: inout JSONCursor) -> [Problem] {
        var ruleProblems: [Problem] = []
        var triggerMessages: [String] = []
        var selectors = LastSelectorVerdict()
        var count = 0
        do {
            guard cursor.peek() == UInt8(ascii: "[") else {
                try cursor.skipValue(depth: 0)
                return [Problem(ruleIndex: nil, message: "the top level is not an array")]
            }
            if try cursor.beginArray() {
                repeat {
                    try Self.checkRule(
                        &cursor, index: count, triggerMessages: &triggerMessages, selectors: &selectors,
                        into: &ruleProblems)
                    count += 1
                } while try cursor.next(closing: UInt8(ascii: "]"))
            }
            cursor.skipWhitespace()
            if !cursor.atEnd { throw cursor.fail("trailing bytes after the JSON value") }
        } catch let error as JSONCursor.SyntaxError {
            return [
                Problem(
                    ruleIndex: nil,
                    message:
                        "invalid JSON at byte \(error.offset): \(error.message) (WebKit: Failed to parse the JSON String)"
                )
            ]
        } catch {
            return [Problem(ruleIndex: nil, message: "invalid JSON: \(error)")]
        }
        var problems: [Problem] = []
        if count == 0 { problems.append(Problem(ruleIndex: nil, message: "empty list (WebKit: Empty extension)")) }
        if count > WebKitLimits.rulesPerList {
            problems.append(
                Problem(ruleIndex: nil, message: "\(count) rules, more than WebKit's \(WebKitLimits.rulesPerList)"))
        }
        return problems + ruleProblems
    }

    /// Checks one rule and appends its problems: the trigger's first, then the action's, whatever the key
    /// order; a repeated `trigger` or `action` key replaces the earlier one, as in WebKit's parser.
    /// - Parameter triggerMessages: reused across rules (empty on entry and on return), so a clean rule
    ///   allocates nothing.
    /// - Parameter selectors: the last selector's verdict, reused across rules.
    static func checkRule(
        _ cursor: inout JSONCursor, index: Int, triggerMessages: inout [String],
        selectors: inout LastSelectorVerdict, into problems: inout [Problem]
    ) throws {
        guard cursor.peek() == UInt8(ascii: "{") else {
            try cursor.skipValue(depth: 1)
            problems.append(Problem(ruleIndex: index, message: "not an object (WebKit: Invalid rule)"))
            return
        }
        var hasTrigger = false
        var hasAction = false
        var actionProblem: String?
        if try cursor.beginObject() {
            repeat {
                let key = try cursor.key()
                if ByteName.equals(key, "trigger") {
                    if !triggerMessages.isEmpty { triggerMessages.removeAll(keepingCapacity: true) }
                    hasTrigger = cursor.peek() == UInt8(ascii: "{")
                    if hasTrigger {
                        try TriggerChecker.check(&cursor, into: &triggerMessages)
                    } else {
                        try cursor.skipValue(depth: 2)
                    }
                } else if ByteName.equals(key, "action") {
                    hasAction = cursor.peek() == UInt8(ascii: "{")
                    if hasAction {
                        actionProblem = try ActionChecker.problem(&cursor, selectors: &selectors)
                    } else {
                        try cursor.skipValue(depth: 2)
                    }
                } else {
                    try cursor.skipValue(depth: 2)
                }
            } while try cursor.next(closing: UInt8(ascii: "}"))
        }
        if !hasTrigger {
            problems.append(
                Problem(ruleIndex: index, message: "missing or invalid trigger object (WebKit: Invalid trigger object)")
            )
        } else if !triggerMessages.isEmpty {
            for message in triggerMessages { problems.append(Problem(ruleIndex: index, message: message)) }
            triggerMessages.removeAll(keepingCapacity: true)
        }
        if !hasAction {
            problems.append(
                Problem(ruleIndex: index, message: "missing or invalid action object (WebKit: Invalid action object)"))
        } else if let actionProblem {
            problems.append(Problem(ruleIndex: index, message: actionProblem))
        }
    }
}
