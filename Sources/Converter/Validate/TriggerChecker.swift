import JSONBytes

/// The `trigger` object of one rule, checked as WebKit's parser reads it: the url-filter regex, the
/// condition lists (one kind per trigger) and the flag arrays. Works on the cursor's bytes in place.
enum TriggerChecker {
    /// Condition keys; at most one kind may appear in a trigger. The first two take domains, the rest regexes.
    static let conditionKeys: [StaticString] = [
        "if-domain", "unless-domain", "if-top-url", "unless-top-url", "if-frame-url", "unless-frame-url",
    ]
    static let resourceTypes: [StaticString] = [
        "document", "image", "style-sheet", "script", "font", "raw", "svg-document",
        "media", "popup", "ping", "fetch", "websocket", "other",
    ]
    static let loadTypes: [StaticString] = ["first-party", "third-party"]
    static let loadContexts: [StaticString] = ["top-frame", "child-frame"]

    private enum Field {
        case urlFilter
        case condition(Int)
        case flags(Flags)
        case other

        init(_ key: UnsafeBufferPointer<UInt8>) {
            if ByteName.equals(key, "url-filter") {
                self = .urlFilter
            } else if ByteName.equals(key, "resource-type") {
                self = .flags(.resourceType)
            } else if ByteName.equals(key, "load-type") {
                self = .flags(.loadType)
            } else if ByteName.equals(key, "load-context") {
                self = .flags(.loadContext)
            } else if let condition = ByteName.index(of: key, in: TriggerChecker.conditionKeys) {
                self = .condition(condition)
            } else {
                self = .other
            }
        }
    }

    /// The trigger's flag arrays and the strings each accepts.
    private enum Flags {
        case resourceType, loadType, loadContext

        var name: StaticString {
            switch self {
            case .resourceType: "resource-type"
            case .loadType: "load-type"
            case .loadContext: "load-context"
            }
        }

        func allows(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
            switch self {
            case .resourceType: ByteName.index(of: value, in: TriggerChecker.resourceTypes) != nil
            case .loadType: ByteName.index(of: value, in: TriggerChecker.loadTypes) != nil
            case .loadContext: ByteName.index(of: value, in: TriggerChecker.loadContexts) != nil
            }
        }
    }

    /// The condition kinds of a trigger in the order they first appear, without allocating.
    private struct ConditionKinds {
        private var seen: UInt8 = 0
        private var order: UInt32 = 0
        private(set) var count = 0

        mutating func insert(_ kind: Int) {
            guard seen & 1 << kind == 0 else { return }
            seen |= 1 << kind
            order |= UInt32(kind) << (4 * count)
            count += 1
        }

        var names: [String] { (0..<count).map { "\(TriggerChecker.conditionKeys[Int(order >> (4 * $0) & 0xF)])" } }
    }

    /// Appends the trigger's problems to `problems` (empty on entry): the url-filter's first, then a
    /// second condition kind, then those of the condition and flag values in order.
    static func check(_ cursor: inout JSONCursor, into problems: inout [String]) throws {
        let missingURLFilter = "url-filter missing or not a string (WebKit: Invalid url-filter object)"
        var urlFilterProblem: String? = missingURLFilter
        var conditions = ConditionKinds()
        guard try cursor.beginObject() else { return problems.append(missingURLFilter) }
        repeat {
            switch Field(try cursor.key()) {
            case .urlFilter:
                if cursor.peek() == UInt8(ascii: "\"") {
                    urlFilterProblem = URLFilterRegexChecker.problem(in: try cursor.string()).map {
                        "url-filter: \($0)"
                    }
                } else {
                    try cursor.skipValue(depth: 3)
                    urlFilterProblem = missingURLFilter
                }
            case .condition(let kind):
                conditions.insert(kind)
                let name = conditionKeys[kind]
                guard cursor.peek() == UInt8(ascii: "["), try cursor.beginArray() else {
                    if cursor.peek() != UInt8(ascii: "]") && cursor.peek() != UInt8(ascii: ",")
                        && cursor.peek() != UInt8(ascii: "}")
                    {
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
                    let value = try cursor.string()
                    if value.isEmpty {
                        problems.append("\(name) must be a non-empty array of non-empty strings")
                    } else if kind < 2 {
                        if !isLowercaseASCII(value) {
                            problems.append(
                                "\(name) \"\(String(decoding: value, as: UTF8.self))\" is not lowercase ASCII (WebKit: Domains must be lower case ASCII)"
                            )
                        }
                    } else if let problem = URLFilterRegexChecker.problem(in: value) {
                        problems.append("\(name): \(problem)")
                    }
                } while try cursor.next(closing: UInt8(ascii: "]"))
            case .flags(let flags):
                let name = flags.name
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
                        valid = flags.allows(try cursor.string())
                    } else {
                        try cursor.skipValue(depth: 4)
                    }
                    if !valid && !reported {
                        problems.append(
                            "\(name) has an invalid value (WebKit: Invalid string in the trigger flags array)")
                        reported = true
                    }
                } while try cursor.next(closing: UInt8(ascii: "]"))
            case .other:
                try cursor.skipValue(depth: 3)
            }
        } while try cursor.next(closing: UInt8(ascii: "}"))
        if urlFilterProblem == nil && conditions.count < 2 { return }
        var first: [String] = []
        if let urlFilterProblem { first.append(urlFilterProblem) }
        if conditions.count > 1 {
            first.append("more than one condition (\(conditions.names.joined(separator: ", "))) in one trigger")
        }
        problems.insert(contentsOf: first, at: 0)
    }

    /// WebKit wants domains in lowercase ASCII (punycode for the rest).
    @inline(__always) static func isLowercaseASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte >= 0x80 || (byte >= 0x41 && byte <= 0x5A) { return false }
        return true
    }
}
