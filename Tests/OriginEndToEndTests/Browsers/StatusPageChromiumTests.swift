import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginRefresh

/// The status page in a real browser: Debian's headless Chromium loads it from a running
/// `listserver serve` with three refreshes in its history (snapshot, upstream, admin refresh),
/// and the page still holds them after a restart.
/// Loopback only: every other host resolves to nothing, and the net log shows no connection
/// anywhere else and no request the page made to another origin.
@Suite(.serialized) struct StatusPageChromiumTests {
    static let binary = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Set to keep the screenshots (e.g. to look at them, or to refresh docs/status-page.png).
    static let screenshotVariable = "LISTSERVER_STATUS_SCREENSHOTS"

    struct BrowserRun {
        var stdout: String
        var stderr: String
    }

    /// One bounded headless run with a fresh profile; `--host-resolver-rules` sends every name but
    /// 127.0.0.1 to NOTFOUND, so even the browser's own background requests cannot leave.
    static func chromium(_ arguments: [String], url: String, profile: String) throws -> BrowserRun {
        let binary = try #require(binary)
        let common = [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + profile, "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--enable-logging=stderr", "--v=0",
        ]
        let finished = try ChildRun.run(binary, common + arguments + [url], timeout: 90)
        let run = BrowserRun(stdout: finished.stdoutText, stderr: finished.stderr)
        try #require(finished.status == 0, "chromium exited with \(finished.status): \(run.stderr.suffix(2000))")
        return run
    }

    /// `URL_REQUEST_START_JOB` events of a Chromium net log: what was requested, and by which origin.
    static func requests(inNetLog path: String) throws -> (
        requests: [(url: String, initiator: String)], remoteAddresses: [String]
    ) {
        let data = try #require(FileManager.default.contents(atPath: path), "chromium wrote no net log")
        let log = try #require(
            try JSONSerialization.jsonObject(with: data) as? [String: Any], "the net log is not JSON")
        let constants = try #require(log["constants"] as? [String: Any])
        let types = try #require(constants["logEventTypes"] as? [String: Int])
        let startJob = try #require(types["URL_REQUEST_START_JOB"])
        // TCP only: Chromium `connect()`s a UDP socket towards a public resolver address to learn its
        // own address (no packet is sent), which the net log shows as SOCKET_CONNECT/UDP_CONNECT.
        let connects = Set(["TCP_CONNECT", "TCP_CONNECT_ATTEMPT"].compactMap { types[$0] })
        var requests: [(url: String, initiator: String)] = []
        var addresses: [String] = []
        for event in log["events"] as? [[String: Any]] ?? [] {
            guard let type = event["type"] as? Int, let params = event["params"] as? [String: Any] else { continue }
            if type == startJob, let url = params["url"] as? String {
                requests.append((url, params["initiator"] as? String ?? ""))
            }
            if connects.contains(type) {
                for key in ["address", "remote_address"] {
                    if let address = params[key] as? String { addresses.append(address) }
                }
                addresses += params["address_list"] as? [String] ?? []
            }
        }
        return (requests, addresses)
    }

    /// Refresh rows on the page as served now.
    static func refreshRows(_ server: ListServerProcess) async throws -> Int {
        let page = String(decoding: try await ListServerProcess.request(server.url("/status.html")).1, as: UTF8.self)
        return page.components(separatedBy: "<tr class=\"refresh ").count - 1
    }

    static func waitForRows(_ server: ListServerProcess, atLeast count: Int) async throws {
        let shown = await eventually(timeout: 60) { (try? await refreshRows(server)) ?? 0 >= count }
        if !shown { Issue.record("the page did not show \(count) refreshes within 60 s") }
    }

    /// Width and height from a PNG's IHDR chunk.
    static func pngSize(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count > 24, bytes.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else { return nil }
        let be = { (at: Int) in bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }

    @Test(
        .enabled(
            if: binary != nil,
            "chromium is not installed: apt-get install chromium (scripts/setup.sh test does); the status page browser test is skipped"
        ),
        .timeLimit(.minutes(5)))
    func thePageLoadsInChromiumWithItsListsRefreshesAndPlotsAndNothingElse() async throws {
        let scratch = ScratchDirectory("status-chromium")
        let upstream = try UpstreamServer()
        defer { upstream.stop() }
        let (server, manifest) = try await Self.serverWithThreeRefreshes(scratch, upstream)
        let origin = "http://127.0.0.1:\(server.port)"
        let page = origin + "/status.html"
        let netLog = scratch.sub("net.json")
        let run = try Self.chromium(
            ["--log-net-log=" + netLog, "--dump-dom"], url: page, profile: scratch.sub("profile-dom"))
        Self.expectListsRefreshesPlotsAndTheExplainForm(in: run.stdout, manifest: manifest)
        try Self.expectNothingButLoopback(netLog: netLog, page: page, origin: origin)
        // The CSP blocks nothing the page needs: a page without script logs nothing to its console.
        let console = run.stderr.split(separator: "\n").filter {
            $0.contains(":CONSOLE") || $0.contains("Content Security Policy")
        }
        #expect(console.isEmpty, "console messages: \(console)")
        try Self.screenshotsAtPhoneAndDesktopWidth(page, scratch)
        #expect(server.terminate() == 0)
        try await Self.historyAndSkippedRulesSurviveARestart(scratch)
    }

    /// `listserver serve` with the snapshot set, then the upstream set, then an admin refresh with one new rule.
    fileprivate static func serverWithThreeRefreshes(_ scratch: ScratchDirectory, _ upstream: UpstreamServer)
        async throws
        -> (ListServerProcess, ListSyncManifestForTests)
    {
        try ListServerProcess.smallSnapshot(scratch.sub("snap"))
        upstream.set("/easylist.txt", .serve(body: try FixtureLists.easylist(lines: 400), etag: "\"1\""))
        upstream.set(
            "/easyprivacy.txt",
            .serve(
                body: Array(
                    "[Adblock Plus 1.1]\n||tracker.example^\n||beacon.example^\n||ads.example^$csp=script-src 'none'\n/ad(s|v)/\n"
                        .utf8),
                etag: "\"p1\""))
        try ListServerProcess.writeConfig(
            scratch.path, upstreamBase: "http://127.0.0.1:\(upstream.port)", snapshotDirectory: scratch.sub("snap"))
        let server = try ListServerProcess(directory: scratch.path, environment: ["LISTSERVER_ADMIN_TOKEN": "t"])
        try await waitForRows(server, atLeast: 2)
        upstream.set(
            "/easylist.txt",
            .serve(body: try FixtureLists.easylist(lines: 400) + Array("||fresh-ads.example^\n".utf8), etag: "\"2\""))
        #expect(
            try await ListServerProcess.request(
                server.url("/admin/refresh"), method: "POST", headers: ["Authorization": "Bearer t"]
            ).0 == 202)
        try await waitForRows(server, atLeast: 3)
        let manifest = try JSONDecoder().decode(
            ListSyncManifestForTests.self, from: try await ListServerProcess.request(server.url("/manifest.json")).1)
        return (server, manifest)
    }

    /// The DOM: every served list, three refresh rows, both plots with their lines, the explain form.
    fileprivate static func expectListsRefreshesPlotsAndTheExplainForm(
        in dom: String, manifest: ListSyncManifestForTests
    ) {
        #expect(!manifest.lists.isEmpty)
        for list in manifest.lists {
            #expect(dom.contains("<tr data-list=\"\(list.id)\">"), "list \(list.id) is on the page")
        }
        #expect(dom.components(separatedBy: "<tr class=\"refresh ").count - 1 == 3, "three refreshes recorded")
        #expect(dom.contains("<tr class=\"refresh published\">"))
        #expect(dom.contains("<svg id=\"plot-rules\"") && dom.contains("<svg id=\"plot-device-bytes\""))
        #expect(dom.components(separatedBy: "<polyline").count - 1 >= 3, "a line per family and per byte series")
        #expect(dom.contains("<form method=\"get\" action=\"explain\">"))
        #expect(dom.contains("<td>option-csp</td>"), "skipped rules by reason, from the conversion report")
        #expect(
            dom.contains("||ads.example^$csp=script-src &#39;none&#39;")
                || dom.contains("||ads.example^$csp=script-src 'none'"), "with an example")
    }

    /// No connection but to loopback, and no request the page made to another origin.
    static func expectNothingButLoopback(netLog: String, page: String, origin: String) throws {
        let (requests, addresses) = try requests(inNetLog: netLog)
        #expect(requests.contains { $0.url == page }, "the net log saw the page load (so the check below is alive)")
        #expect(!addresses.isEmpty && addresses.allSatisfy { $0.hasPrefix("127.0.0.1:") }, "connections: \(addresses)")
        let foreign = requests.filter { $0.initiator == origin && !$0.url.hasPrefix(origin + "/") }
        #expect(foreign.isEmpty, "the page requested another origin: \(foreign.map(\.url))")
    }

    static func screenshotsAtPhoneAndDesktopWidth(_ page: String, _ scratch: ScratchDirectory) throws {
        let shots = ProcessInfo.processInfo.environment[screenshotVariable] ?? scratch.path
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        for (width, height) in [(390, 2600), (1280, 1900)] {
            let file = shots + "/status-page-\(width).png"
            try? FileManager.default.removeItem(atPath: file)
            _ = try chromium(
                ["--hide-scrollbars", "--screenshot=" + file, "--window-size=\(width),\(height)"], url: page,
                profile: scratch.sub("profile-\(width)"))
            let png = try #require(FileManager.default.contents(atPath: file), "no screenshot at \(width) px")
            let size = try #require(pngSize(Array(png)), "not a PNG")
            #expect(size.0 == width && size.1 == height, "\(size)")
        }
    }

    /// After a restart the history and the skipped rules (from report.json) are still there.
    static func historyAndSkippedRulesSurviveARestart(_ scratch: ScratchDirectory) async throws {
        let restarted = try ListServerProcess(directory: scratch.path, environment: ["LISTSERVER_ADMIN_TOKEN": "t"])
        let again = String(
            decoding: try await ListServerProcess.request(restarted.url("/status"), headers: ["Accept": "text/html"]).1,
            as: UTF8.self)
        #expect(
            again.components(separatedBy: "<tr class=\"refresh ").count - 1 >= 3, "the history survived the restart")
        #expect(again.contains("<td>option-csp</td>"), "skipped rules come from report.json after a restart")
        #expect(restarted.terminate() == 0)
    }
}

/// Just the manifest fields this test reads.
private struct ListSyncManifestForTests: Decodable {
    struct Entry: Decodable { var id: String }
    var lists: [Entry]
}
