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

    /// WebKit's limit on rules per list ("Too many rules in JSON array" above it).
    public static let maximumRules = 150_000
    static let resourceTypes: Set<String> = ["document", "image", "style-sheet", "script", "font", "raw", "svg-document",
                                             "media", "popup", "ping", "fetch", "websocket", "other"]
    static let loadTypes: Set<String> = ["first-party", "third-party"]
    static let loadContexts: Set<String> = ["top-frame", "child-frame"]
    static let conditionKeys = ["if-domain", "unless-domain", "if-top-url", "unless-top-url", "if-frame-url", "unless-frame-url"]

    public init() {}

    /// Every problem in the list; empty means WebKit compiles it with all its rules.
    /// One pass over the bytes: strings are decoded only where a rule field needs checking.
    public func problems(in json: [UInt8]) -> [Problem] {
        let isUTF8 = json.withUnsafeBufferPointer { LineClassifier.isValidUTF8($0) }
        if !isUTF8 { return [Problem(ruleIndex: nil, message: "the list is not valid UTF-8 (WebKit: Failed to parse the JSON String)")] }
        return json.withUnsafeBufferPointer { buffer in
            var cursor = JSONCursor(buffer)
            var ruleProblems: [Problem] = []
            var count = 0
            do {
                guard cursor.peek() == UInt8(ascii: "[") else {
                    try cursor.skipValue(depth: 0)
                    return [Problem(ruleIndex: nil, message: "the top level is not an array")]
                }
                var scratch = Scratch()
                if try cursor.beginArray() {
                    repeat {
                        for message in try Self.ruleProblems(&cursor, &scratch) {
                            ruleProblems.append(Problem(ruleIndex: count, message: message))
                        }
                        count += 1
                    } while try cursor.next(closing: UInt8(ascii: "]"))
                }
                cursor.skipWhitespace()
                if !cursor.atEnd { throw cursor.fail("trailing bytes after the JSON value") }
            } catch let error as JSONCursor.SyntaxError {
                return [Problem(ruleIndex: nil, message: "invalid JSON at byte \(error.offset): \(error.message) (WebKit: Failed to parse the JSON String)")]
            } catch {
                return [Problem(ruleIndex: nil, message: "invalid JSON: \(error)")]
            }
            var problems: [Problem] = []
            if count == 0 { problems.append(Problem(ruleIndex: nil, message: "empty list (WebKit: Empty extension)")) }
            if count > Self.maximumRules {
                problems.append(Problem(ruleIndex: nil, message: "\(count) rules, more than WebKit's \(Self.maximumRules)"))
            }
            return problems + ruleProblems
        }
    }

    /// Problems of one rule object given as JSON bytes (for checking rules before they are joined into a list).
    public func problems(inRule json: [UInt8]) -> [String] {
        problems(in: [UInt8(ascii: "[")] + json + [UInt8(ascii: "]")]).map(\.message)
    }

    /// Decode buffers reused across rules.
    struct Scratch {
        var key: [UInt8] = []
        var value: [UInt8] = []
        var type: [UInt8] = []
    }

    /// Length first, then the bytes: most keys differ in length from the name they are tested against.
    @inline(__always) static func equals(_ bytes: [UInt8], _ text: StaticString) -> Bool {
        guard bytes.count == text.utf8CodeUnitCount else { return false }
        return text.withUTF8Buffer { expected in
            bytes.withUnsafeBufferPointer { actual in
                for index in 0..<actual.count where actual[index] != expected[index] { return false }
                return true
            }
        }
    }

    static func ruleProblems(_ cursor: inout JSONCursor, _ scratch: inout Scratch) throws -> [String] {
        guard cursor.peek() == UInt8(ascii: "{") else {
            try cursor.skipValue(depth: 1)
            return ["not an object (WebKit: Invalid rule)"]
        }
        var trigger: [String]?
        var action: [String]?
        if try cursor.beginObject() {
            repeat {
                try cursor.key(into: &scratch.key)
                if equals(scratch.key, "trigger") {
                    trigger = cursor.peek() == UInt8(ascii: "{") ? try triggerProblems(&cursor, &scratch) : nil
                    if trigger == nil { try cursor.skipValue(depth: 2) }
                } else if equals(scratch.key, "action") {
                    action = cursor.peek() == UInt8(ascii: "{") ? try actionProblems(&cursor, &scratch) : nil
                    if action == nil { try cursor.skipValue(depth: 2) }
                } else {
                    try cursor.skipValue(depth: 2)
                }
            } while try cursor.next(closing: UInt8(ascii: "}"))
        }
        var problems = trigger ?? ["missing or invalid trigger object (WebKit: Invalid trigger object)"]
        problems.append(contentsOf: action ?? ["missing or invalid action object (WebKit: Invalid action object)"])
        return problems
    }

    private enum TriggerField {
        case urlFilter
        case condition(String, isDomain: Bool)
        case flags(String, Set<[UInt8]>)
        case other
    }

    private static func field(_ key: [UInt8]) -> TriggerField {
        if equals(key, "url-filter") { return .urlFilter }
        if equals(key, "resource-type") { return .flags("resource-type", resourceTypeBytes) }
        if equals(key, "load-type") { return .flags("load-type", loadTypeBytes) }
        if equals(key, "load-context") { return .flags("load-context", loadContextBytes) }
        for name in conditionKeys where name.utf8.elementsEqual(key) { return .condition(name, isDomain: name.hasSuffix("domain")) }
        return .other
    }

    static let resourceTypeBytes = Set(resourceTypes.map { Array($0.utf8) })
    static let loadTypeBytes = Set(loadTypes.map { Array($0.utf8) })
    static let loadContextBytes = Set(loadContexts.map { Array($0.utf8) })

    static func triggerProblems(_ cursor: inout JSONCursor, _ scratch: inout Scratch) throws -> [String] {
        var urlFilterProblem: String? = "url-filter missing or not a string (WebKit: Invalid url-filter object)"
        var conditions: [String] = []
        var problems: [String] = []
        guard try cursor.beginObject() else { return [urlFilterProblem!] }
        repeat {
            try cursor.key(into: &scratch.key)
            switch field(scratch.key) {
            case .urlFilter:
                if cursor.peek() == UInt8(ascii: "\"") {
                    try cursor.string(into: &scratch.value)
                    urlFilterProblem = URLFilterRegexChecker.problem(in: scratch.value).map { "url-filter: \($0)" }
                } else {
                    try cursor.skipValue(depth: 3)
                    urlFilterProblem = "url-filter missing or not a string (WebKit: Invalid url-filter object)"
                }
            case .condition(let name, let isDomain):
                if !conditions.contains(name) { conditions.append(name) }
                guard cursor.peek() == UInt8(ascii: "["), try cursor.beginArray() else {
                    if cursor.peek() != UInt8(ascii: "]") && cursor.peek() != UInt8(ascii: ",") && cursor.peek() != UInt8(ascii: "}") {
                        try cursor.skipValue(depth: 3)
                    }
                    problems.append("\(name) must be a non-empty array of strings")
                    continue
                }
                repeat {
                    guard cursor.peek() == UInt8(ascii: "\"") else {
                        try cursor.skipValue(depth: 4)
                        problems.append("\(name) must be a non-empty array of non-empty strings")
                        continue
                    }
                    try cursor.string(into: &scratch.value)
                    if scratch.value.isEmpty {
                        problems.append("\(name) must be a non-empty array of non-empty strings")
                    } else if isDomain {
                        if scratch.value.contains(where: { $0 >= 0x80 || ($0 >= 0x41 && $0 <= 0x5A) }) {
                            problems.append("\(name) \"\(String(decoding: scratch.value, as: UTF8.self))\" is not lowercase ASCII (WebKit: Domains must be lower case ASCII)")
                        }
                    } else if let problem = URLFilterRegexChecker.problem(in: scratch.value) {
                        problems.append("\(name): \(problem)")
                    }
                } while try cursor.next(closing: UInt8(ascii: "]"))
            case .flags(let name, let allowed):
                guard cursor.peek() == UInt8(ascii: "[") else {
                    try cursor.skipValue(depth: 3)
                    problems.append("\(name) is not an array")
                    continue
                }
                guard try cursor.beginArray() else { continue }
                var reported = false
                repeat {
                    var valid = false
                    if cursor.peek() == UInt8(ascii: "\"") {
                        try cursor.string(into: &scratch.value)
                        valid = allowed.contains(scratch.value)
                    } else {
                        try cursor.skipValue(depth: 4)
                    }
                    if !valid && !reported {
                        problems.append("\(name) has an invalid value (WebKit: Invalid string in the trigger flags array)")
                        reported = true
                    }
                } while try cursor.next(closing: UInt8(ascii: "]"))
            case .other:
                try cursor.skipValue(depth: 3)
            }
        } while try cursor.next(closing: UInt8(ascii: "}"))
        var result: [String] = []
        if let urlFilterProblem { result.append(urlFilterProblem) }
        if conditions.count > 1 { result.append("more than one condition (\(conditions.joined(separator: ", "))) in one trigger") }
        return result + problems
    }

    static func actionProblems(_ cursor: inout JSONCursor, _ scratch: inout Scratch) throws -> [String] {
        var hasType = false
        var selectorVerdict: CSSSelectorChecker.Verdict?
        var selectorPrefix = ""
        var hasNotification = false
        var hasRedirect = false
        var hasPriority = false
        if try cursor.beginObject() {
            repeat {
                try cursor.key(into: &scratch.key)
                let isString = cursor.peek() == UInt8(ascii: "\"")
                if equals(scratch.key, "type") {
                    hasType = isString
                    if isString { try cursor.string(into: &scratch.type) } else { try cursor.skipValue(depth: 3) }
                } else if equals(scratch.key, "selector"), isString {
                    try cursor.string(into: &scratch.value)
                    let verdict = CSSSelectorChecker.check(scratch.value)
                    selectorVerdict = verdict
                    if verdict == .invalid { selectorPrefix = String(decoding: scratch.value.prefix(120), as: UTF8.self) }
                } else {
                    if equals(scratch.key, "notification") { hasNotification = isString }
                    if equals(scratch.key, "redirect") { hasRedirect = true }
                    if equals(scratch.key, "priority") { hasPriority = true }
                    if equals(scratch.key, "selector") { selectorVerdict = nil }
                    try cursor.skipValue(depth: 3)
                }
            } while try cursor.next(closing: UInt8(ascii: "}"))
        }
        guard hasType else { return ["action without a type string (WebKit: Invalid action type)"] }
        let type = scratch.type
        if equals(type, "block") || equals(type, "block-cookies") || equals(type, "ignore-previous-rules") || equals(type, "make-https") {
            return []
        }
        if equals(type, "css-display-none") {
            switch selectorVerdict {
            case nil: return ["css-display-none without a selector string (WebKit: Requires a selector)"]
            case .valid?: return []
            case .extendedCSS?: return ["selector uses procedural (non-CSS) operators; WebKit would drop the rule silently"]
            case .invalid?: return ["selector \"\(selectorPrefix)\" may be rejected by WebKit's CSS parser, which drops the rule silently"]
            }
        }
        if equals(type, "notify") { return hasNotification ? [] : ["notify without a notification string"] }
        if equals(type, "redirect") { return hasRedirect ? [] : ["redirect without a redirect member"] }
        if equals(type, "modify-headers") { return hasPriority ? [] : ["modify-headers without a positive priority"] }
        return ["unknown action type (WebKit: Invalid action type)"]
    }
}
