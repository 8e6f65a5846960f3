import Converter
import Foundation
import OriginConfig

/// Finds the rules WebKit rejects inside a list it refused as a whole, by compiling halves of the
/// rules through the publish gate (one batch per level, so both halves compile in parallel) until
/// each rejected part is a single rule. WebKit refuses a whole list for one bad url-filter, so one
/// bad line would otherwise hold back every list; with the rule found, its ABP line can be dropped.
package struct PoisonIsolation: Sendable {
    /// How much work one isolation may take before it gives up (the previous set then stays served).
    package struct Bounds: Sendable, Equatable {
        /// WebKit compiles of parts of lists, over all the lists of one publish.
        package var compiles: Int
        /// Wall-clock seconds, over all the lists of one publish.
        package var seconds: Double
    }

    /// A rule WebKit rejects on its own: its index in the list's JSON array and WebKit's error.
    package struct Offender: Sendable, Equatable {
        package var rule: Int
        package var reason: String
    }

    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The list is not the converter's one-rule-a-line JSON array, so it cannot be cut into rules.
        case notOneRuleALine(list: String)
        /// Isolation needed more compiles or time than its bounds allow.
        case overBound(list: String, compiles: Int, seconds: Double, bounds: Bounds)
        /// Every part compiles on its own: WebKit rejects the rules only together (too many rules, say).
        case noSingleRule(list: String, reason: String)

        package var description: String {
            switch self {
            case .notOneRuleALine(let list):
                return "cannot isolate the rejected rules of \(list): it is not a JSON array with one rule a line"
            case .overBound(let list, let compiles, let seconds, let bounds):
                return
                    "isolating the rejected rules of \(list) stopped after \(compiles) compiles and \(String(format: "%.1f", seconds)) s (bounds: publish.isolationMaxCompiles \(bounds.compiles), publish.isolationMaxSeconds \(Int(bounds.seconds))); raise them or fix the upstream line"
            case .noSingleRule(let list, let reason):
                return "WebKit rejects \(list) (\(reason)) but none of its rules on its own; no line can be isolated"
            }
        }
    }

    package var gate: any PublishGate
    package var bounds: Bounds

    package init(gate: any PublishGate, bounds: Bounds) {
        self.gate = gate
        self.bounds = bounds
    }

    /// What one isolation spent, shared by the lists of one publish so the bounds hold for all of them.
    package struct Budget: Sendable {
        package var compiles = 0
        package var started = Date()
        package var seconds: Double { Date().timeIntervalSince(started) }

        package init() {}
    }

    /// The rules of `list` WebKit rejects on their own. `reason` is the gate's verdict on the whole list.
    package func offenders(in list: RuleList, reason: String, budget: inout Budget) throws(Failure) -> [Offender] {
        guard let rules = Self.rules(of: list.json), !rules.isEmpty else { throw .notOneRuleALine(list: list.id) }
        var suspects: [(range: Range<Int>, reason: String)] = [(0..<rules.count, reason)]
        var offenders: [Offender] = []
        while !suspects.isEmpty {
            offenders += suspects.filter { $0.range.count == 1 }.map {
                Offender(rule: $0.range.lowerBound, reason: $0.reason)
            }
            let split = suspects.filter { $0.range.count > 1 }.map(Self.halves)
            guard !split.isEmpty else { break }
            let parts = split.flatMap { [$0.0, $0.1] }
            guard budget.compiles + parts.count <= bounds.compiles, budget.seconds <= bounds.seconds else {
                throw .overBound(list: list.id, compiles: budget.compiles, seconds: budget.seconds, bounds: bounds)
            }
            budget.compiles += parts.count
            let verdicts = gate.rejections(of: parts.map { Self.list(list.id, rules: rules, range: $0) }).map(
                Self.causeOfRejection)
            suspects = []
            for (index, pair) in split.enumerated() {
                let found = [(pair.0, verdicts[2 * index]), (pair.1, verdicts[2 * index + 1])].compactMap {
                    range, verdict in
                    verdict.map { (range: range, reason: $0) }
                }
                if found.isEmpty { throw .noSingleRule(list: list.id, reason: reason) }
                suspects += found
            }
        }
        return offenders.sorted { $0.rule < $1.rule }
    }

    /// WebKit drops a rule with a bad selector silently, so a part made only of such rules is
    /// "Empty extension.": not what made the whole list fail.
    private static func causeOfRejection(_ verdict: String?) -> String? {
        guard let verdict, !verdict.hasPrefix("Empty extension.") else { return nil }
        return verdict
    }

    private static func halves(_ suspect: (range: Range<Int>, reason: String)) -> (Range<Int>, Range<Int>) {
        let middle = suspect.range.lowerBound + suspect.range.count / 2
        return (suspect.range.lowerBound..<middle, middle..<suspect.range.upperBound)
    }

    /// A list of some of the rules, under an id no published list has (so no compile time is kept for it).
    private static func list(_ id: String, rules: [ArraySlice<UInt8>], range: Range<Int>) -> RuleList {
        var json: [UInt8] = Array("[\n".utf8)
        for index in range {
            if index > range.lowerBound { json += Array(",\n".utf8) }
            json += rules[index]
        }
        json += Array("\n]\n".utf8)
        return RuleList(id: "\(id).part-\(range.lowerBound)-\(range.upperBound)", json: json, ruleCount: range.count)
    }

    /// The rules of the converter's list layout (`[`, one rule a line, each but the last followed by
    /// `,`, then `]`); nil for any other shape.
    package static func rules(of json: [UInt8]) -> [ArraySlice<UInt8>]? {
        var lines = json.split(separator: 0x0A, omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard lines.count >= 2, lines.first.map(Array.init) == [UInt8(ascii: "[")],
            lines.last.map(Array.init) == [UInt8(ascii: "]")]
        else { return nil }
        var rules = Array(lines.dropFirst().dropLast())
        for index in rules.indices.dropLast() {
            guard rules[index].last == UInt8(ascii: ",") else { return nil }
            rules[index] = rules[index].dropLast()
        }
        guard rules.allSatisfy({ $0.first == UInt8(ascii: "{") && $0.last == UInt8(ascii: "}") }) else { return nil }
        return rules
    }
}

extension PoisonIsolation.Bounds {
    /// The operator's bounds, `publish.isolationMaxCompiles` and `publish.isolationMaxSeconds`.
    package init(_ publish: Configuration.Publish) {
        self.init(compiles: publish.isolationMaxCompiles, seconds: publish.isolationMaxSeconds)
    }
}
