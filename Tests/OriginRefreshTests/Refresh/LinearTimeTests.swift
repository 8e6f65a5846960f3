import Converter
import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

/// Conversion and publishing (provenance, skip records, layout, gzip, hashes) stay linear in the
/// input however its lines are shaped: each hostile shape of about 1 MB converts and publishes in
/// at most 10× the time of the same number of bytes of the real EasyList, measured in the same run.
/// One `$domain=` line naming 60,000 domains once took minutes here (a linear search per host name
/// while writing its skip record).
@Suite(.serialized) struct LinearTimeTests {
    static let factor = 10.0

    static func domains(_ count: Int, separator: String) -> String {
        (0..<count).map { "d\($0).example.com" }.joined(separator: separator)
    }

    /// Hostile shapes of about 1 MB each, beside a few ordinary rules so there is a set to publish.
    static let shapes: [(name: String, line: String)] = [
        ("one $domain= line naming 60,000 domains", "||ads.example^$domain=" + domains(60_000, separator: "|")),
        (
            "one $script,domain= line naming 60,000 domains",
            "||ads.example^$script,domain=" + domains(60_000, separator: "|")
        ),
        ("one hiding rule for 60,000 domains", domains(60_000, separator: ",") + "##.ad-banner"),
        ("one exception for 60,000 domains", "@@||cdn.example^$domain=" + domains(60_000, separator: "|")),
        ("one 1 MB URL pattern", "/" + String(repeating: "abc*", count: 260_000) + "/"),
        ("60,000 distinct hosts", (0..<60_000).map { "||h\($0).example^" }.joined(separator: "\n")),
    ]

    /// Seconds to convert `text` and publish it into a fresh directory (no WebKit gate).
    static func convertAndPublish(_ text: [UInt8]) throws -> Double {
        let scratch = ScratchDirectory("linear")
        let started = DispatchTime.now()
        let output = try ListConverter().convert([FilterListSource(id: "shape", bytes: text)])
        let publisher = Publisher(
            writer: SetWriter(directory: scratch.sub("public")), gracePeriod: 3600, gate: nil, log: LogLines().log)
        var history: [PersistentState.PublishRecord] = []
        _ = try publisher.publish(output, over: nil, history: &history, now: Date())
        return Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
    }

    @Test func everyShapeConvertsAndPublishesWithinTenTimesTheRealListOfItsSize() throws {
        let ordinary = (0..<200).map { "||ordinary\($0).example^" }.joined(separator: "\n") + "\n"
        var results: [String] = []
        for shape in Self.shapes {
            let text = Array(("[Adblock Plus 2.0]\n" + ordinary + shape.line + "\n").utf8)
            // The same number of bytes of the real list (its whole lines), converted the same way.
            let real = try FixtureLists.easylist(lines: 80_000)
            var cut = min(real.count, text.count)
            while cut < real.count, real[cut - 1] != 0x0A { cut += 1 }
            let reference = try Self.convertAndPublish(Array(real[..<cut]))
            let seconds = try Self.convertAndPublish(text)
            results.append(
                String(
                    format: "%@: %.2f s for %d bytes, real list %.2f s (%.1f×)", shape.name, seconds, text.count,
                    reference, seconds / reference))
            #expect(
                seconds <= Self.factor * reference,
                "\(shape.name): \(seconds) s, more than \(Self.factor)× the \(reference) s of \(cut) bytes of EasyList")
        }
        print(results.joined(separator: "\n"))
    }
}
