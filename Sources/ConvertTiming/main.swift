// Release timing of conversion alone, no files written: `swift run -c release ConvertTiming [lists...]`
// (default: the bundled 2025-10 EasyList + EasyPrivacy; RUNS=n sets the repetitions). Converts the lists
// RUNS times and prints the best and median wall time, the validator's time and verdict on every list,
// and the converted/skipped table. A profiling aid; comparisons against a baseline are scripts/bench/convert.sh.
import Converter
import Dispatch
import Foundation

let arguments = CommandLine.arguments.dropFirst()
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
let paths =
    arguments.isEmpty
    ? ["snapshot/easylist.txt", "snapshot/easyprivacy.txt"].map { root.appendingPathComponent($0).path }
    : Array(arguments)
let runs = max(1, Int(ProcessInfo.processInfo.environment["RUNS"] ?? "") ?? 10)
let sources = try paths.map { path -> FilterListSource in
    let id = (path as NSString).lastPathComponent.replacingOccurrences(of: ".txt", with: "")
    return FilterListSource(id: id, bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

var configuration = ConverterConfiguration()
configuration.validatesLists = false
let converter = ListConverter(configuration: configuration)
var output = try converter.convert(sources)
var times: [Double] = []
for _ in 0..<runs {
    times.append(try seconds { output = try converter.convert(sources) })
}
times.sort()
print(
    String(
        format: "conversion without validation (%d runs): best %.3f s, median %.3f s", runs, times[0],
        times[times.count / 2]))

let validator = WebKitListValidator()
var invalid: [String] = []
let validation = seconds {
    for list in output.lists where !validator.problems(in: list.json).isEmpty { invalid.append(list.id) }
}
let bytes = output.lists.reduce(0) { $0 + $1.json.count }
print(
    String(
        format: "validator over %d lists (%d rules, %.1f MB): %.3f s; invalid lists: %@", output.lists.count,
        output.lists.reduce(0) { $0 + $1.ruleCount }, Double(bytes) / 1e6, validation,
        invalid.isEmpty ? "none" : invalid.joined(separator: ", ")))
for report in output.report.sources {
    let skipped = report.skipped.values.reduce(0) { $0 + $1.count }
    print(
        "\n\(report.id): lines \(report.lines), rules \(report.rules), converted \(report.converted), skipped \(skipped)"
    )
    for (reason, tally) in report.skipped.sorted(by: { $0.value.count > $1.value.count }) {
        let example = tally.examples.first.map { String($0.prefix(90)) } ?? ""
        print(
            "  \(reason.padding(toLength: 28, withPad: " ", startingAt: 0)) \(String(tally.count).padding(toLength: 6, withPad: " ", startingAt: 0)) e.g. \(example)"
        )
    }
}
if !invalid.isEmpty { exit(1) }
