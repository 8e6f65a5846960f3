import Foundation
import ListSync
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// `listserver serve` as a real process: offline cold start from the bundled snapshot, warm start
/// from the published set, the admin refresh, and SIGTERM.
@Suite(.serialized) struct ServeTests {

    @Test func coldStartWithoutNetworkServesTheBundledSetThenWarmStartServesItAtOnce() async throws {
        let scratch = ScratchDirectory("serve-cold")
        let closed = try UpstreamServer()
        closed.stop()
        try ListServerProcess.writeConfig(
            scratch.path, upstreamBase: "http://127.0.0.1:\(closed.port)",
            snapshotDirectory: ListServerProcess.repositorySnapshot)

        let cold = try ListServerProcess(directory: scratch.path)
        let manifestData = try await ListServerProcess.waitFor200(cold, "/manifest.json", seconds: 60)
        let manifest = try #require(manifestData, "the bundled set must be served within 60 s")
        let lists = try JSONDecoder().decode(ListSyncManifest.self, from: manifest).lists
        #expect(lists.count > 1)
        #expect(lists.reduce(0) { $0 + $1.rules } > 50_000, "the full bundled set, not a stub")
        for entry in lists.prefix(3) {
            let (status, body) = try await ListServerProcess.request(cold.url("/" + entry.file))
            #expect(status == 200)
            #expect(SHA256Digest.hex(of: Array(body)) == entry.sha256)
        }
        #expect(try await ListServerProcess.request(cold.url("/healthz")).0 == 200)
        // Wait for the background refresh to fail (no upstream), then /status says so.
        var status: [String: Any] = [:]
        _ = try await eventually(timeout: 10) {
            let (_, body) = try await ListServerProcess.request(cold.url("/status"))
            status = (try JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:]
            return (status["lastRefresh"] as? [String: Any])?["result"] as? String == "failed"
        }
        let upstreams = try #require(status["upstreams"] as? [[String: Any]])
        #expect(upstreams.count == 2)
        for upstream in upstreams {
            #expect(upstream["source"] as? String == "bundled-snapshot")
            #expect(upstream["sourceDate"] as? String == "2025-10")
            #expect(upstream["lastResult"] as? String == "failed")
            #expect((upstream["lastError"] as? String)?.contains("connection failed") == true)
        }
        #expect((status["lastRefresh"] as? [String: Any])?["result"] as? String == "failed")
        #expect(cold.terminate() == 0, "SIGTERM drains and exits 0")

        // Warm start: the same set, served from disk without converting.
        let warm = try ListServerProcess(directory: scratch.path)
        let warmManifest = try await ListServerProcess.waitFor200(warm, "/manifest.json", seconds: 10)
        #expect(warmManifest == manifest)
        // The manifest is offered gzip too, and it decodes to the same bytes.
        let client = try RawHTTPClient(port: warm.port)
        try client.send("GET /manifest.json HTTP/1.1\r\nHost: origin\r\nAccept-Encoding: gzip\r\n\r\n")
        let gzipped = try client.readResponse()
        client.close()
        #expect(gzipped.status == 200)
        #expect(gzipped.header("Content-Encoding") == "gzip")
        #expect(try Gzip.decompress(gzipped.body, limit: 1 << 20) == Array(manifest))
        let log = (try? String(contentsOfFile: scratch.sub("serve.err"), encoding: .utf8)) ?? ""
        #expect(log.contains("serving the published set"), "the warm start loads the set from disk: \(log.suffix(400))")
        #expect(warm.terminate() == 0)
    }

    @Test func adminRefreshFetchesAndPublishesTheNewUpstreamVersion() async throws {
        let scratch = ScratchDirectory("serve-admin")
        try ListServerProcess.smallSnapshot(scratch.sub("snap"))
        let upstream = try UpstreamServer()
        upstream.set("/easylist.txt", .serve(body: try FixtureLists.easylist(lines: 400), etag: "\"1\""))
        upstream.set(
            "/easyprivacy.txt",
            .serve(body: Array("[Adblock Plus 1.1]\n||tracker.example^\n||beacon.example^\n".utf8), etag: "\"p1\""))
        try ListServerProcess.writeConfig(
            scratch.path, upstreamBase: "http://127.0.0.1:\(upstream.port)", snapshotDirectory: scratch.sub("snap"))
        let server = try ListServerProcess(directory: scratch.path, environment: ["LISTSERVER_ADMIN_TOKEN": "s3cret"])
        // Start: snapshot set, then the immediate fetch publishes the upstream set.
        var upstreamStatus: [[String: Any]] = []
        _ = try await eventually(timeout: 10) {
            let (_, body) = try await ListServerProcess.request(server.url("/status"))
            let status = (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:]
            upstreamStatus = status["upstreams"] as? [[String: Any]] ?? []
            return upstreamStatus.count == 2 && upstreamStatus.allSatisfy { $0["lastResult"] as? String == "updated" }
        }
        try #require(upstreamStatus.count == 2, "/status must list both upstreams: \(upstreamStatus)")
        #expect(upstreamStatus.allSatisfy { $0["source"] as? String == "upstream" })
        let before = try await ListServerProcess.request(server.url("/manifest.json")).1

        upstream.set(
            "/easylist.txt",
            .serve(body: try FixtureLists.easylist(lines: 400) + Array("||fresh-ads.example^\n".utf8), etag: "\"2\""))
        #expect(try await ListServerProcess.request(server.url("/admin/refresh"), method: "POST").0 == 401)
        #expect(
            try await ListServerProcess.request(
                server.url("/admin/refresh"), method: "POST", headers: ["Authorization": "Bearer s3cret"]
            ).0 == 202)
        var after = before
        _ = try await eventually(timeout: 10) {
            after = try await ListServerProcess.request(server.url("/manifest.json")).1
            return after != before
        }
        #expect(after != before, "the admin refresh published the new version")
        #expect(upstream.requests(for: "/easylist.txt").last?.headers["if-none-match"] == "\"1\"")
        #expect(server.terminate() == 0)
    }

    /// Upstream faults end to end: after each, the served manifest is the last good one,
    /// /healthz stays 200 and /status names the error.
    @Test func upstreamFaultsWhileServingKeepTheLastGoodSet() async throws {
        let scratch = ScratchDirectory("serve-faults")
        try ListServerProcess.smallSnapshot(scratch.sub("snap"))
        let upstream = try UpstreamServer()
        let good = try FixtureLists.easylist(lines: 400)
        upstream.set("/easylist.txt", .serve(body: good, etag: "\"good\""))
        upstream.set(
            "/easyprivacy.txt", .serve(body: Array("[Adblock Plus 1.1]\n||tracker.example^\n".utf8), etag: "\"p\""))
        try ListServerProcess.writeConfig(
            scratch.path, upstreamBase: "http://127.0.0.1:\(upstream.port)", snapshotDirectory: scratch.sub("snap"),
            extra: #", "http": {"shutdownGraceSeconds": 1}"#)
        // Tighter fetch limits for this run: 1 s total timeout, 1 MB cap.
        var config = try String(contentsOfFile: scratch.sub("config.json"), encoding: .utf8)
        config = config.replacingOccurrences(
            of: #""totalTimeoutSeconds": 5"#, with: #""totalTimeoutSeconds": 1, "maxBodyBytes": 1048576"#)
        try Array(config.utf8).write(to: scratch.sub("config.json"))
        let server = try ListServerProcess(directory: scratch.path, environment: ["LISTSERVER_ADMIN_TOKEN": "t"])

        func easylistStatus() async throws -> [String: Any]? {
            let (_, body) = try await ListServerProcess.request(server.url("/status"))
            let status = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            return (status?["upstreams"] as? [[String: Any]])?.first { $0["id"] as? String == "easylist" }
        }
        // The snapshot set is served first, then the upstream set replaces it.
        let snapshotManifest = try #require(
            try await ListServerProcess.waitFor200(server, "/manifest.json", seconds: 60))
        _ = try await eventually(timeout: 20) {
            try await ListServerProcess.request(server.url("/manifest.json")).1 != snapshotManifest
        }
        let goodManifest = try await ListServerProcess.request(server.url("/manifest.json")).1
        #expect(try await easylistStatus()?["source"] as? String == "upstream")

        let faults: [(String, UpstreamServer.Behavior, String)] = [
            ("500", .status(500), "HTTP 500"),
            ("404", .status(404), "HTTP 404"),
            ("garbage", .serve(body: (0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 131) }), "does not decode"),
            ("html", .serve(body: Array("<html>maintenance</html>".utf8)), "does not start with"),
            ("empty 200", .serve(body: []), "body is empty"),
            ("half the rules", .serve(body: try FixtureLists.easylist(lines: 150)), "less than 50%"),
            ("truncated", .truncated(body: good, sentBytes: good.count / 2), "truncated"),
            ("never answers", .hang, "timed out"),
            ("slow drip", .drip(body: good, interval: 0.05), "timed out"),
            ("over the cap", .stream(chunk: [UInt8](repeating: 0x21, count: 65_536), count: 64), "maxBodyBytes"),
            ("redirect loop", .redirect(location: "/easylist.txt"), "redirects"),
        ]
        for (name, behavior, expected) in faults {
            upstream.set("/easylist.txt", behavior)
            #expect(
                try await ListServerProcess.request(
                    server.url("/admin/refresh"), method: "POST", headers: ["Authorization": "Bearer t"]
                ).0 == 202)
            var error = ""
            _ = try await eventually(timeout: 15) {
                error = try await easylistStatus()?["lastError"] as? String ?? ""
                return error.contains(expected)
            }
            #expect(error.contains(expected), "\(name): /status must say why; it says \"\(error)\"")
            #expect(try await ListServerProcess.request(server.url("/healthz")).0 == 200, "\(name): /healthz stays 200")
            #expect(
                try await ListServerProcess.request(server.url("/manifest.json")).1 == goodManifest,
                "\(name): the last good set is served")
            // Back to the good copy (a 304), which clears the error, so the next fault's message
            // cannot be the one this fault left behind (several share words, e.g. "truncated", "timed out").
            upstream.set("/easylist.txt", .serve(body: good, etag: "\"good\""))
            #expect(
                try await ListServerProcess.request(
                    server.url("/admin/refresh"), method: "POST", headers: ["Authorization": "Bearer t"]
                ).0 == 202)
            let cleared = try await eventually(timeout: 15) {
                try await easylistStatus()?["lastError"] as? String == nil
            }
            try #require(cleared, "\(name): a good fetch must clear /status's lastError")
        }
        #expect(server.terminate() == 0)
    }

    @Test func withoutATokenTheAdminEndpointDoesNotExist() async throws {
        let scratch = ScratchDirectory("serve-noadmin")
        try ListServerProcess.smallSnapshot(scratch.sub("snap"))
        let closed = try UpstreamServer()
        closed.stop()
        try ListServerProcess.writeConfig(
            scratch.path, upstreamBase: "http://127.0.0.1:\(closed.port)", snapshotDirectory: scratch.sub("snap"))
        let server = try ListServerProcess(directory: scratch.path)
        #expect(try await ListServerProcess.waitFor200(server, "/manifest.json", seconds: 60) != nil)
        #expect(try await ListServerProcess.request(server.url("/admin/refresh")).0 == 404)
        #expect(
            try await ListServerProcess.request(
                server.url("/admin/refresh"), method: "POST", headers: ["Authorization": "Bearer x"]
            ).0 == 404)
        #expect(server.terminate() == 0)
    }

    @Test func aStateDirectoryFromANewerServerIsRefusedWithTheVersion() throws {
        let scratch = ScratchDirectory("serve-newer")
        try ListServerProcess.smallSnapshot(scratch.sub("snap"))
        try ListServerProcess.writeConfig(
            scratch.path, upstreamBase: "http://127.0.0.1:9", snapshotDirectory: scratch.sub("snap"))
        try FileManager.default.createDirectory(atPath: scratch.sub("state"), withIntermediateDirectories: true)
        try Array(#"{"version":2}"#.utf8).write(to: scratch.sub("state/state.json"))
        let finished = try ChildRun.run(
            try ListServerBinary.path(),
            ["serve", "--config", scratch.sub("config.json"), "--port", "0"], timeout: 60)
        #expect(finished.status == 1)
        #expect(finished.stderr.contains("state version 2"), "\(finished.stderr)")
    }
}

/// The manifest as a device decodes it (ListSync's type).
typealias ListSyncManifest = ListSync.Manifest
