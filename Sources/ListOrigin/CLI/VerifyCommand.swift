import Foundation
import ListFormat
import WebKitCompiler

/// `listserver verify DIR`: compiles every list the manifest in DIR names (and only those) in real
/// WebKit and prints one row per list. Exit 0 when all compile, 1 on any failure, 2 on usage errors.
enum VerifyCommand: Command {
    static let name = "verify"
    static let summary = "compile a published set's lists in WebKitGTK and report rules, errors and seconds"
    static let synopsis = "DIR    (a directory holding manifest.json)"
    static let flags: [FlagSpec] = [
        FlagSpec(name: "--timeout", takesValue: true, help: "seconds allowed per list (default 180)"),
        FlagSpec(
            name: "--helpers", takesValue: true,
            help: "WebKit helper processes compiling at once (default: one per core)"),
    ]
    static let maxPositional = 1

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        guard let directory = arguments.positional.first else {
            throw UsageError(description: "give the directory that holds manifest.json")
        }
        let manifestURL = URL(fileURLWithPath: directory).appendingPathComponent("manifest.json")
        guard let data = FileManager.default.contents(atPath: manifestURL.path) else {
            throw UsageError(description: "no readable manifest.json in \(directory)")
        }
        let manifest: Manifest
        do {
            manifest = try JSONDecoder().decode(Manifest.self, from: data)
        } catch {
            ListServerCommandLine.printError(
                "listserver verify: \(manifestURL.path) is not a format-1 manifest: \(error)")
            return 1
        }
        let timeout = try arguments.value("--timeout").map {
            Double(try ArgumentParser.integer($0, flag: "--timeout", range: 1...3600))
        }
        let helpers = try arguments.value("--helpers").map {
            try ArgumentParser.integer($0, flag: "--helpers", range: 1...64)
        }
        let pool = WebKitCompilerPool(
            helper: .thisExecutable(), size: helpers ?? ProcessInfo.processInfo.activeProcessorCount)
        let version: String
        do {
            version = try pool.probe()
        } catch {
            ListServerCommandLine.printError("listserver verify: \(error)")
            return 1
        }
        var lists: [WebKitInput] = []
        for entry in manifest.lists {
            let path = URL(fileURLWithPath: directory).appendingPathComponent(entry.file).path
            guard let bytes = FileManager.default.contents(atPath: path) else {
                ListServerCommandLine.printError("listserver verify: cannot read \(path), which the manifest names")
                return 1
            }
            lists.append(WebKitInput(id: entry.id, json: Array(bytes), rules: entry.rules))
        }
        let verdicts = pool.compile(lists, timeoutPerList: timeout ?? 180)
        print(VerifyTable(verdicts: verdicts, webKitVersion: version).text)
        return verdicts.allSatisfy(\.ok) ? 0 : 1
    }
}

/// The `verify` output: one row per list and a sum row.
struct VerifyTable {
    var verdicts: [WebKitVerdict]
    var webKitVersion: String

    var text: String {
        let width = max(4, verdicts.map(\.id.count).max() ?? 0)
        func row(_ list: String, _ rules: String, _ result: String, _ seconds: String, _ error: String = "") -> String {
            list.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                + String(repeating: " ", count: max(0, 8 - rules.count)) + rules
                + "  " + result.padding(toLength: 7, withPad: " ", startingAt: 0)
                + String(repeating: " ", count: max(0, 8 - seconds.count)) + seconds
                + (error.isEmpty ? "" : "  " + error)
        }
        var lines = ["WebKitGTK \(webKitVersion)", row("list", "rules", "result", "seconds", "error")]
        for verdict in verdicts {
            lines.append(
                row(
                    verdict.id, verdict.rules.map(String.init) ?? "-", verdict.ok ? "ok" : "FAIL",
                    String(format: "%.3f", verdict.seconds), verdict.error ?? ""))
        }
        let failed = verdicts.filter { !$0.ok }.count
        lines.append(
            row(
                "sum", String(verdicts.reduce(0) { $0 + ($1.rules ?? 0) }), failed == 0 ? "ok" : "\(failed) bad",
                String(format: "%.3f", verdicts.reduce(0) { $0 + $1.seconds })))
        return lines.joined(separator: "\n")
    }
}
