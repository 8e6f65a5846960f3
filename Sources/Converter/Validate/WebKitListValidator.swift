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
    public func problems(in json: [UInt8]) -> [Problem] {
        let isUTF8 = json.withUnsafeBufferPointer { LineClassifier.isValidUTF8($0) }
        if !isUTF8 { return [Problem(ruleIndex: nil, message: "the list is not valid UTF-8 (WebKit: Failed to parse the JSON String)")] }
        let root: JSONValue
        switch JSONParser.parse(json) {
        case .success(let value): root = value
        case .failure(let error):
            return [Problem(ruleIndex: nil, message: "invalid JSON at byte \(error.offset): \(error.message) (WebKit: Failed to parse the JSON String)")]
        }
        guard case .array(let rules) = root else {
            return [Problem(ruleIndex: nil, message: "the top level is not an array")]
        }
        var problems: [Problem] = []
        if rules.isEmpty { problems.append(Problem(ruleIndex: nil, message: "empty list (WebKit: Empty extension)")) }
        if rules.count > Self.maximumRules {
            problems.append(Problem(ruleIndex: nil, message: "\(rules.count) rules, more than WebKit's \(Self.maximumRules)"))
        }
        for (index, rule) in rules.enumerated() {
            for message in Self.ruleProblems(rule) { problems.append(Problem(ruleIndex: index, message: message)) }
        }
        return problems
    }

    /// Problems of one rule object given as JSON bytes (for checking rules before they are joined into a list).
    public func problems(inRule json: [UInt8]) -> [String] {
        switch JSONParser.parse(json) {
        case .success(let value): return Self.ruleProblems(value)
        case .failure(let error): return ["invalid JSON at byte \(error.offset): \(error.message)"]
        }
    }

    static func ruleProblems(_ rule: JSONValue) -> [String] {
        guard case .object = rule else { return ["not an object (WebKit: Invalid rule)"] }
        var problems: [String] = []
        if let trigger = rule.member("trigger"), case .object = trigger {
            problems.append(contentsOf: triggerProblems(trigger))
        } else {
            problems.append("missing or invalid trigger object (WebKit: Invalid trigger object)")
        }
        if let action = rule.member("action"), case .object = action {
            problems.append(contentsOf: actionProblems(action))
        } else {
            problems.append("missing or invalid action object (WebKit: Invalid action object)")
        }
        return problems
    }

    static func triggerProblems(_ trigger: JSONValue) -> [String] {
        var problems: [String] = []
        if case .string(let filter)? = trigger.member("url-filter") {
            if let problem = URLFilterRegexChecker.problem(in: filter) { problems.append("url-filter: \(problem)") }
        } else {
            problems.append("url-filter missing or not a string (WebKit: Invalid url-filter object)")
        }
        let present = conditionKeys.filter { trigger.member($0) != nil }
        if present.count > 1 {
            problems.append("more than one condition (\(present.joined(separator: ", "))) in one trigger")
        }
        for key in present {
            guard case .array(let values)? = trigger.member(key), !values.isEmpty else {
                problems.append("\(key) must be a non-empty array of strings")
                continue
            }
            for value in values {
                guard case .string(let bytes) = value, !bytes.isEmpty else {
                    problems.append("\(key) must be a non-empty array of non-empty strings")
                    continue
                }
                if key.hasSuffix("domain") {
                    if bytes.contains(where: { $0 >= 0x80 || ($0 >= 0x41 && $0 <= 0x5A) }) {
                        problems.append("\(key) \"\(String(decoding: bytes, as: UTF8.self))\" is not lowercase ASCII (WebKit: Domains must be lower case ASCII)")
                    }
                } else if let problem = URLFilterRegexChecker.problem(in: bytes) {
                    problems.append("\(key): \(problem)")
                }
            }
        }
        for (key, allowed) in [("resource-type", resourceTypes), ("load-type", loadTypes), ("load-context", loadContexts)] {
            guard let value = trigger.member(key) else { continue }
            guard case .array(let values) = value else {
                problems.append("\(key) is not an array")
                continue
            }
            for value in values {
                guard case .string(let bytes) = value, allowed.contains(String(decoding: bytes, as: UTF8.self)) else {
                    problems.append("\(key) has an invalid value (WebKit: Invalid string in the trigger flags array)")
                    break
                }
            }
        }
        return problems
    }

    static func actionProblems(_ action: JSONValue) -> [String] {
        guard case .string(let typeBytes)? = action.member("type") else { return ["action without a type string (WebKit: Invalid action type)"] }
        switch String(decoding: typeBytes, as: UTF8.self) {
        case "block", "block-cookies", "ignore-previous-rules", "make-https":
            return []
        case "css-display-none":
            guard case .string(let selector)? = action.member("selector") else {
                return ["css-display-none without a selector string (WebKit: Requires a selector)"]
            }
            switch CSSSelectorChecker.check(selector) {
            case .valid: return []
            case .extendedCSS: return ["selector uses procedural (non-CSS) operators; WebKit would drop the rule silently"]
            case .invalid: return ["selector \"\(String(decoding: selector.prefix(120), as: UTF8.self))\" may be rejected by WebKit's CSS parser, which drops the rule silently"]
            }
        case "notify":
            if case .string? = action.member("notification") { return [] }
            return ["notify without a notification string"]
        case "redirect":
            return action.member("redirect") == nil ? ["redirect without a redirect member"] : []
        case "modify-headers":
            return action.member("priority") == nil ? ["modify-headers without a positive priority"] : []
        default:
            return ["unknown action type (WebKit: Invalid action type)"]
        }
    }
}
