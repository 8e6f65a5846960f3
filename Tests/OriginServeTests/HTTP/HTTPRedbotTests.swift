import Foundation
import ListOrigin
import OriginTestSupport
import TestSupport
import Testing

/// REDbot's protocol and caching checks against the real server: `scripts/redbot-check.sh` must
/// find no BAD note on the manifest, a list chunk, a stable alias and the alias index (JSON and
/// HTML). Fails (not skips) when REDbot is missing.
@Suite struct HTTPRedbotTests {
    @Test func redbotFindsNoBadNotes() throws {
        let root = Repository.root.path
        let script = root + "/scripts/redbot-check.sh"
        #expect(
            FileManager.default.isExecutableFile(atPath: root + "/.venv/bin/redbot"),
            "REDbot missing: create .venv and `pip install redbot` (scripts/setup.sh)")
        let harness = try ServerHarness()
        defer { harness.stop() }
        let finished = try ChildRun.run(
            "/bin/bash",
            [
                script, "http://127.0.0.1:\(harness.port)", harness.fileNames[0],
                "lists/network-00.json", "lists/", "lists/index.html",
            ], timeout: 300)
        let text = finished.output
        #expect(finished.status == 0, "redbot-check.sh failed (status \(finished.status)):\n\(text)")
        #expect(text.contains("GOOD VALIDATION If-None-Match"), "\(text)")
        #expect(text.contains("no BAD notes"))
        #expect(text.components(separatedBy: "\n== ").count == 5, "five URLs checked:\n\(text)")
    }
}
