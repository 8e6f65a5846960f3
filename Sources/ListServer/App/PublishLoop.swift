import Converter
import Foundation

/// A fault-testing tool: publishes small synthetic sets into a directory over and over, with a
/// zero grace period so every round creates, renames and removes files. A test kills the process
/// with SIGKILL at random moments and checks that the manifest on disk only ever names intact files.
struct PublishLoop: Sendable {
    var directory: String
    /// Rounds to run; nil runs until killed.
    var iterations: Int?
    var log: Log

    func run() throws {
        let publisher = Publisher(writer: SetWriter(directory: directory), gracePeriod: 0, gate: nil, log: log)
        publisher.writer.removeStaleTempFiles()
        var history: [PersistentState.PublishRecord] = []
        // Start where no earlier run did, so every run publishes sets of its own.
        let first = Int(Date().timeIntervalSince1970 * 1000) % 1_000_000_000
        var round = 0
        while iterations.map({ round < $0 }) ?? true {
            // Announce each round so a test can time its kill into the publishing, not the start-up.
            print("round \(round)")
            fflush(stdout)
            _ = try publisher.publish(Self.output(round: first + round), history: &history)
            round += 1
        }
    }

    /// Three lists: one changes every round, one every third round, one never.
    static func output(round: Int) -> ConversionOutput {
        func list(_ id: String, version: Int, rules: Int) -> RuleList {
            var json = Array("[".utf8)
            for index in 0..<rules {
                if index > 0 { json.append(UInt8(ascii: ",")) }
                json += Array(#"{"trigger":{"url-filter":"^https?://ads\#(version)-\#(index)\\.example/"},"action":{"type":"block"}}"#.utf8)
            }
            json.append(UInt8(ascii: "]"))
            return RuleList(id: id, json: json, ruleCount: rules)
        }
        let lists = [list("fast", version: round, rules: 300), list("slow", version: round / 3, rules: 500), list("fixed", version: 0, rules: 200)]
        let report = ConversionReport(sources: [], lists: lists.map { ConversionReport.ListReport(id: $0.id, rules: $0.ruleCount, bytes: $0.json.count) })
        return ConversionOutput(lists: lists, report: report, layoutState: Array("{\"round\":\(round)}".utf8))
    }
}
