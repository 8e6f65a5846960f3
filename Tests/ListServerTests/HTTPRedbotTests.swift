import Foundation
import Testing
@testable import ListServer

/// REDbot's protocol and caching checks against the real server: `scripts/redbot-check.sh` must
/// find no BAD note on the manifest or a list chunk. Fails (not skips) when REDbot is missing.
@Suite struct HTTPRedbotTests {
    @Test func redbotFindsNoBadNotes() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let script = root + "/scripts/redbot-check.sh"
        #expect(FileManager.default.isExecutableFile(atPath: root + "/.venv/bin/redbot"),
                "REDbot missing: create .venv and `pip install redbot` (scripts/setup.sh)")
        let harness = try ServerHarness()
        defer { harness.stop() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, "http://127.0.0.1:\(harness.port)", harness.fileNames[0]]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        if finished.wait(timeout: .now() + 300) == .timedOut {
            process.terminate()
            Issue.record("redbot-check.sh did not finish within 300 s")
            return
        }
        let text = String(decoding: data, as: UTF8.self)
        #expect(process.terminationStatus == 0, "redbot-check.sh failed:\n\(text)")
        #expect(text.contains("GOOD VALIDATION If-None-Match"), "\(text)")
        #expect(text.contains("no BAD notes"))
    }
}
