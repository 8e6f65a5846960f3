import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import OriginServe

/// The status page as a person on call meets it on a fresh machine with no network: the bundled
/// snapshot is served and every fetch fails. In headless Chromium, before and after a restart, the
/// page must agree with itself: a failed refresh comes with its error, each upstream shows its
/// last attempt and how it ended, and a long skipped-line example is cut.
extension StatusPageChromiumTests {
    /// A `snippet` line naming 60 sites: the example the page must not print whole.
    static let longSnippet =
        (1...60).map { "site\($0).example" }.joined(separator: ",") + "#$#abort-on-property-read adsbygoogle"

    @Test(
        .enabled(
            if: binary != nil,
            "chromium is not installed: apt-get install chromium (scripts/setup.sh test does); the status page browser test is skipped"
        ),
        .timeLimit(.minutes(5)))
    func theOnCallPageSaysWhatFailedAndWhenEachUpstreamWasTried() async throws {
        let scratch = ScratchDirectory("status-on-call")
        try ListServerProcess.smallSnapshot(scratch.sub("snap"))
        let snapshot = scratch.sub("snap") + "/easylist.txt"
        try (Array(try Data(contentsOf: URL(fileURLWithPath: snapshot))) + Array("\(Self.longSnippet)\n".utf8)).write(
            to: snapshot)
        // Nothing listens on port 1 of loopback: every attempt is refused, as offline.
        let config = """
            {"publicDir": "public", "stateDir": "state",
             "upstreams": [{"id": "easylist", "url": "http://127.0.0.1:1/easylist.txt", "snapshot": "\(scratch.sub("snap"))/easylist.txt"},
                           {"id": "easyprivacy", "url": "http://127.0.0.1:1/easyprivacy.txt", "snapshot": "\(scratch.sub("snap"))/easyprivacy.txt"}],
             "refresh": {"attempts": 4, "retryBaseDelaySeconds": 0.01, "retryMaxDelaySeconds": 0.02},
             "fetch": {"connectTimeoutSeconds": 1, "totalTimeoutSeconds": 5},
             "publish": {"verifyWithWebKit": "off"}}
            """
        try Array(config.utf8).write(to: scratch.path + "/config.json")
        let server = try ListServerProcess(directory: scratch.path)
        let failed = await eventually(timeout: 60) {
            let body = (try? await ListServerProcess.request(server.url("/status")).1) ?? Data()
            let status = (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:]
            return (status["lastRefresh"] as? [String: Any])?["result"] as? String == "failed"
        }
        try #require(failed, "the first online refresh did not fail")
        try Self.expectTheOnCallFacts(
            Self.chromium(
                ["--dump-dom"], url: "http://127.0.0.1:\(server.port)/status.html",
                profile: scratch.sub("profile-before")
            ).stdout, when: "before a restart")
        #expect(server.terminate() == 0)
        // After a restart nothing is refreshed at once (the failure is recent): the page shows what state.json and the history kept.
        let restarted = try ListServerProcess(directory: scratch.path)
        try Self.expectTheOnCallFacts(
            Self.chromium(
                ["--dump-dom"], url: "http://127.0.0.1:\(restarted.port)/status.html",
                profile: scratch.sub("profile-after")
            ).stdout, when: "after a restart")
        #expect(restarted.terminate() == 0)
    }

    static func expectTheOnCallFacts(_ dom: String, when: String) throws {
        #expect(dom.contains("<p id=\"verdict\">Serving, but the last refresh failed</p>"), "\(when): the header")
        let lastError = try #require(
            section(of: dom, from: "<dd id=\"last-error\">", to: "</dd>"), "\(when): no Last error tile")
        #expect(lastError != "none" && lastError.contains("easylist"), "\(when): the Last error tile says \(lastError)")
        let upstreams = try #require(
            section(of: dom, from: "<table id=\"upstreams\">", to: "</table>"), "\(when): no upstream table")
        let rows = upstreams.components(separatedBy: "<tr>").dropFirst(2)
        #expect(rows.count == 2, "\(when): \(upstreams)")
        for row in rows {
            let attempt = section(of: row, from: "<td class=\"attempt\">", to: "</td>")
            #expect(attempt != nil && attempt != "none yet", "\(when): each upstream shows its last attempt: \(row)")
            #expect(row.contains("<td>failed</td>"), "\(when): and how it ended: \(row)")
            #expect(row.contains("Connection refused") || row.contains("connect"), "\(when): and its error: \(row)")
        }
        let skipped = try #require(section(of: dom, from: "<table id=\"skipped-table\">", to: "</table>"))
        let snippet = try #require(
            section(of: skipped, from: "<td>snippet</td>", to: "</tr>"), "\(when): the snippet row: \(skipped)")
        let example = try #require(section(of: snippet, from: "<code>", to: "</code>"))
        #expect(
            example.count <= StatusPage.exampleLength && example.hasSuffix("…"),
            "\(when): the example is cut: \(example)")
        #expect(example.hasPrefix("site1.example,site2.example"))
    }

    /// The text between `start` and the next `end`.
    static func section(of text: String, from start: String, to end: String) -> String? {
        guard let open = text.range(of: start), let close = text.range(of: end, range: open.upperBound..<text.endIndex)
        else { return nil }
        return String(text[open.upperBound..<close.lowerBound])
    }
}
