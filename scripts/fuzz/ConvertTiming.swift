// Timing harness for rule conversion (no layout): converts the given lists N times and prints the
// best and median wall time, the converted/skipped table and the validator verdict on every rule.
import Foundation

@main
struct ConvertTiming {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        let runs = Int(ProcessInfo.processInfo.environment["RUNS"] ?? "") ?? 10
        let sources = try arguments.map { path -> FilterListSource in
            let id = (path as NSString).lastPathComponent.replacingOccurrences(of: ".txt", with: "")
            return FilterListSource(id: id, bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        }
        var times: [Double] = []
        var result = RuleConverter().convert(sources)
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            result = RuleConverter().convert(sources)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        times.sort()
        print(String(format: "conversion (rules only, %d runs): best %.3f s, median %.3f s", runs, times[0], times[times.count / 2]))
        let validator = WebKitListValidator()
        var invalid = 0
        for rule in result.rules.network {
            var bytes = rule.json
            if let carveOut = rule.carveOut { bytes = Array("[".utf8) + bytes + Array(",".utf8) + carveOut + Array("]".utf8) } else { bytes = Array("[".utf8) + bytes + Array("]".utf8) }
            let problems = validator.problems(in: bytes)
            if !problems.isEmpty { invalid += 1; if invalid < 10 { print("INVALID \(rule.key): \(problems)") } }
        }
        for rule in result.rules.siteExceptions where !validator.problems(in: Array("[".utf8) + rule.json + Array("]".utf8)).isEmpty {
            invalid += 1; print("INVALID \(rule.key)")
        }
        print("network rules \(result.rules.network.count) (carve-outs \(result.rules.network.filter { $0.carveOut != nil }.count)), cosmetic \(result.rules.cosmetic.count), site exceptions \(result.rules.siteExceptions.count), invalid \(invalid)")
        var list: [UInt8] = [UInt8(ascii: "[")]
        for rule in result.rules.network {
            if list.count > 1 { list.append(UInt8(ascii: ",")) }
            list.append(contentsOf: rule.json)
        }
        list.append(UInt8(ascii: "]"))
        var validateTimes: [Double] = []
        for _ in 0..<max(1, runs / 2) {
            let start = DispatchTime.now().uptimeNanoseconds
            let problems = validator.problems(in: list)
            validateTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            precondition(problems.isEmpty)
        }
        print(String(format: "validator over all %d network rules (%.1f MB): best %.3f s", result.rules.network.count, Double(list.count) / 1e6, validateTimes.min()!))
        let policies = Dictionary(grouping: result.rules.network, by: { "\($0.navigation)" }).mapValues(\.count)
        print("navigation policy: \(policies.sorted { $0.key < $1.key })")
        for report in result.reports {
            let skipped = report.skipped.values.reduce(0) { $0 + $1.count }
            print("\n\(report.id): lines \(report.lines), rules \(report.rules), converted \(report.converted), skipped \(skipped)")
            for (reason, tally) in report.skipped.sorted(by: { $0.value.count > $1.value.count }) {
                print("  \(reason.padding(toLength: 28, withPad: " ", startingAt: 0)) \(String(tally.count).padding(toLength: 6, withPad: " ", startingAt: 0)) e.g. \(tally.examples.first!.prefix(90))")
            }
        }
    }
}
