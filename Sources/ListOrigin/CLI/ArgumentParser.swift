/// A small, strict command-line parser: known flags only, so a typo is an error, not a default.
struct FlagSpec: Sendable {
    var name: String
    /// Whether the flag takes a value (`--port 8080` or `--port=8080`).
    var takesValue: Bool
    /// Whether it may appear more than once, or take several values (`--input a b c`).
    var repeatable = false
    var help: String
}

struct ParsedArguments: Sendable, Equatable {
    var values: [String: [String]] = [:]
    var switches: Set<String> = []
    var positional: [String] = []

    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
    func has(_ name: String) -> Bool { switches.contains(name) }
}

/// A usage problem; `listserver` prints it with the command's usage and exits 2.
struct UsageError: Error, CustomStringConvertible, Equatable {
    var description: String
}

enum ArgumentParser {
    static func parse(_ arguments: [String], flags: [FlagSpec], maxPositional: Int = 0) throws -> ParsedArguments {
        var parsed = ParsedArguments()
        let byName = Dictionary(uniqueKeysWithValues: flags.map { ($0.name, $0) })
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                if argument.hasPrefix("-"), argument.count > 1 {
                    throw UsageError(description: "unknown flag \(argument)")
                }
                parsed.positional.append(argument)
                continue
            }
            var name = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            guard let spec = byName[name] else { throw UsageError(description: "unknown flag \(name)") }
            if !spec.takesValue {
                if inline != nil { throw UsageError(description: "\(name) takes no value") }
                parsed.switches.insert(name)
                continue
            }
            if !spec.repeatable, parsed.values[name] != nil {
                throw UsageError(description: "\(name) given twice")
            }
            if let inline {
                parsed.values[name, default: []].append(inline)
                continue
            }
            // A repeatable flag swallows values up to the next flag: `--input a.txt b.txt`.
            var taken = 0
            while index < arguments.count, !arguments[index].hasPrefix("--") {
                parsed.values[name, default: []].append(arguments[index])
                index += 1
                taken += 1
                if !spec.repeatable { break }
            }
            if taken == 0 { throw UsageError(description: "\(name) needs a value") }
        }
        if parsed.positional.count > maxPositional {
            throw UsageError(description: "unexpected argument \(parsed.positional[maxPositional])")
        }
        return parsed
    }

    static func usage(command: String, summary: String, synopsis: String, flags: [FlagSpec]) -> String {
        var lines = ["usage: listserver \(command) \(synopsis)", "", summary, ""]
        if !flags.isEmpty {
            lines.append("flags:")
            for flag in flags {
                let left = flag.takesValue ? "\(flag.name) VALUE" : flag.name
                lines.append(
                    "  " + left.padding(toLength: max(24, left.count + 2), withPad: " ", startingAt: 0) + flag.help)
            }
            lines.append("  " + "--help".padding(toLength: 24, withPad: " ", startingAt: 0) + "show this help")
        }
        return lines.joined(separator: "\n")
    }

    static func integer(_ text: String, flag: String, range: ClosedRange<Int>) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(
                description: "\(flag) must be an integer in \(range.lowerBound)...\(range.upperBound), got \"\(text)\"")
        }
        return value
    }
}
