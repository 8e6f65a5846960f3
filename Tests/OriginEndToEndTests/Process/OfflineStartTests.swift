import Foundation
import ListOrigin
import OriginTestSupport
import TestSupport
import Testing

/// The README's promise: with no network at all, a first start serves the full bundled set.
/// The time bound here is generous (tests share the CPU); the 60 s figure is measured by running
/// `scripts/offline-check.sh` on a release build.
@Suite struct OfflineStartTests {
    struct Report: Decodable {
        struct Source: Decodable {
            var source: String?
            var sourceDate: String?
        }

        var seconds: Double
        var lists: Int
        var rules: Int
        var sources: [String: Source]
    }

    @Test func servesTheBundledSnapshotWithOnlyLoopback() throws {
        let root = Repository.root
        let binary = try ListServerBinary.path()
        // stderr straight to the test's, as the script's progress.
        let process = try RunningChild(
            "/bin/bash", [root.appendingPathComponent("scripts/offline-check.sh").path, binary, "180"], stdout: .pipe)
        let data = FileHandle(fileDescriptor: process.output, closeOnDealloc: true).readDataToEndOfFile()
        #expect(process.wait() == 0, "offline-check.sh failed: \(String(decoding: data, as: UTF8.self))")
        let line = try #require(
            String(decoding: data, as: UTF8.self).split(separator: "\n").last(where: { $0.hasPrefix("{") }))
        let report = try JSONDecoder().decode(Report.self, from: Data(line.utf8))
        #expect(report.lists >= 5)
        #expect(report.rules >= 100_000)
        for id in ["easylist", "easyprivacy"] {
            #expect(
                report.sources[id]?.source == "bundled-snapshot", "\(id): \(String(describing: report.sources[id]))")
            #expect(report.sources[id]?.sourceDate == "2025-10")
        }
    }
}
