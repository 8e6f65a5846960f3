import Foundation
import Testing
import ListSync
@testable import ListServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `listserver serve` as a real process: offline cold start from the bundled snapshot, warm start
/// from the published set, the admin refresh, and SIGTERM.
@Suite(.serialized) struct ServeTests {
    /// A running `listserver serve` with its own config, public and state directories.
    final class ServerProcess {
        let process = Process()
        let port: Int
        let output: String

        init(directory: String, environment: [String: String] = [:], timeout: Double = 60) throws {
            let binary = try FaultTests.listserverBinary()
            output = directory + "/serve-\(UUID().uuidString.prefix(6)).out"
            FileManager.default.createFile(atPath: output, contents: nil)
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["serve", "--config", directory + "/config.json", "--port", "0"]
            var env = ProcessInfo.processInfo.environment
            env.removeValue(forKey: "LISTSERVER_ADMIN_TOKEN")
            for (key, value) in environment { env[key] = value }
            process.environment = env
            process.standardOutput = FileHandle(forWritingAtPath: output)
            FileManager.default.createFile(atPath: directory + "/serve.err", contents: nil)
            let errors = FileHandle(forWritingAtPath: directory + "/serve.err")
            process.standardError = errors
            try process.run()
            let deadline = Date().addingTimeInterval(timeout)
            var found: Int?
            while found == nil, Date() < deadline, process.isRunning {
                let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                if let range = text.range(of: #"127\.0\.0\.1:(\d+)/"#, options: .regularExpression) {
                    found = Int(text[range].dropFirst("127.0.0.1:".count).dropLast())
                } else {
                    usleep(20_000)
                }
            }
            guard let found else {
                process.terminate()
                throw UpstreamServer.ServerError("listserver serve did not announce its port within \(timeout) s: \((try? String(contentsOfFile: directory + "/serve.err", encoding: .utf8)) ?? "")")
            }
            port = found
        }

        func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

        /// SIGTERM and wait (bounded); returns the exit status.
        func terminate() -> Int32 {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(30)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return -1
            }
            return process.terminationStatus
        }

        deinit {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
    }

    static func writeConfig(_ directory: String, upstreamBase: String, snapshotDirectory: String, extra: String = "") throws {
        let config = """
        {"publicDir": "public", "stateDir": "state",
         "upstreams": [{"id": "easylist", "url": "\(upstreamBase)/easylist.txt", "snapshot": "\(snapshotDirectory)/easylist.txt"},
                       {"id": "easyprivacy", "url": "\(upstreamBase)/easyprivacy.txt", "snapshot": "\(snapshotDirectory)/easyprivacy.txt"}],
         "refresh": {"attempts": 1, "retryBaseDelaySeconds": 0.01},
         "fetch": {"connectTimeoutSeconds": 1, "totalTimeoutSeconds": 5},
         "publish": {"verifyWithWebKit": "off"}\(extra)}
        """
        try Array(config.utf8).write(to: directory + "/config.json")
    }

    static var repositorySnapshot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("snapshot").path
    }

    /// GET (or another method) with a fresh session; returns status and body.
    static func request(_ url: URL, method: String = "GET", headers: [String: String] = [:]) async throws -> (Int, Data) {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 10)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// Polls `path` until it answers 200 or `seconds` pass.
    static func waitFor200(_ server: ServerProcess, _ path: String, seconds: Double) async throws -> Data? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let (status, data) = try? await request(server.url(path)), status == 200 { return data }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        return nil
    }

    @Test func coldStartWithoutNetworkServesTheBundledSetThenWarmStartServesItAtOnce() async throws {
        let scratch = ScratchDirectory("serve-cold")
        let closed = try UpstreamServer()
        closed.stop()
        try Self.writeConfig(scratch.path, upstreamBase: "http://127.0.0.1:\(closed.port)", snapshotDirectory: Self.repositorySnapshot)

        let cold = try ServerProcess(directory: scratch.path)
        let manifestData = try await Self.waitFor200(cold, "/manifest.json", seconds: 60)
        let manifest = try #require(manifestData, "the bundled set must be served within 60 s")
        let lists = try JSONDecoder().decode(ListSyncManifest.self, from: manifest).lists
        #expect(lists.count > 1)
        #expect(lists.reduce(0) { $0 + $1.rules } > 50_000, "the full bundled set, not a stub")
        for entry in lists.prefix(3) {
            let (status, body) = try await Self.request(cold.url("/" + entry.file))
            #expect(status == 200)
            #expect(SHA256.hex(Array(body)) == entry.sha256)
        }
        #expect(try await Self.request(cold.url("/healthz")).0 == 200)
        // Wait for the background refresh to fail (no upstream), then /status says so.
        var status: [String: Any] = [:]
        for _ in 0..<200 {
            let (_, body) = try await Self.request(cold.url("/status"))
            status = (try JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:]
            if (status["lastRefresh"] as? [String: Any])?["result"] as? String == "failed" { break }
            try await Task.sleep(nanoseconds: 50_000_000)
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
        let warm = try ServerProcess(directory: scratch.path)
        let warmManifest = try await Self.waitFor200(warm, "/manifest.json", seconds: 10)
        #expect(warmManifest == manifest)
        let log = (try? String(contentsOfFile: scratch.sub("serve.err"), encoding: .utf8)) ?? ""
        #expect(log.contains("serving the published set"), "the warm start loads the set from disk: \(log.suffix(400))")
        #expect(warm.terminate() == 0)
    }

    static func smallSnapshot(_ directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try RefreshTests.easylist(lines: 300).write(to: directory + "/easylist.txt")
        try Array("[Adblock Plus 1.1]\n! Title: EasyPrivacy\n||tracker.example^\n||pixel.example^$image\n".utf8).write(to: directory + "/easyprivacy.txt")
    }

    @Test func adminRefreshFetchesAndPublishesTheNewUpstreamVersion() async throws {
        let scratch = ScratchDirectory("serve-admin")
        try Self.smallSnapshot(scratch.sub("snap"))
        let upstream = try UpstreamServer()
        upstream.set("/easylist.txt", .serve(body: try RefreshTests.easylist(lines: 400), etag: "\"1\""))
        upstream.set("/easyprivacy.txt", .serve(body: Array("[Adblock Plus 1.1]\n||tracker.example^\n||beacon.example^\n".utf8), etag: "\"p1\""))
        try Self.writeConfig(scratch.path, upstreamBase: "http://127.0.0.1:\(upstream.port)", snapshotDirectory: scratch.sub("snap"))
        let server = try ServerProcess(directory: scratch.path, environment: ["LISTSERVER_ADMIN_TOKEN": "s3cret"])
        // Start: snapshot set, then the immediate fetch publishes the upstream set.
        var upstreamStatus: [[String: Any]] = []
        for _ in 0..<200 {
            let (_, body) = try await Self.request(server.url("/status"))
            let status = (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:]
            upstreamStatus = status["upstreams"] as? [[String: Any]] ?? []
            if upstreamStatus.count == 2, upstreamStatus.allSatisfy({ $0["lastResult"] as? String == "updated" }) { break }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        #expect(upstreamStatus.allSatisfy { $0["source"] as? String == "upstream" })
        let before = try await Self.request(server.url("/manifest.json")).1

        upstream.set("/easylist.txt", .serve(body: try RefreshTests.easylist(lines: 400) + Array("||fresh-ads.example^\n".utf8), etag: "\"2\""))
        #expect(try await Self.request(server.url("/admin/refresh"), method: "POST").0 == 401)
        #expect(try await Self.request(server.url("/admin/refresh"), method: "POST", headers: ["Authorization": "Bearer s3cret"]).0 == 202)
        var after = before
        for _ in 0..<200 where after == before {
            try await Task.sleep(nanoseconds: 50_000_000)
            after = try await Self.request(server.url("/manifest.json")).1
        }
        #expect(after != before, "the admin refresh published the new version")
        #expect(upstream.requests(for: "/easylist.txt").last?.headers["if-none-match"] == "\"1\"")
        #expect(server.terminate() == 0)
    }

    @Test func withoutATokenTheAdminEndpointDoesNotExist() async throws {
        let scratch = ScratchDirectory("serve-noadmin")
        try Self.smallSnapshot(scratch.sub("snap"))
        let closed = try UpstreamServer()
        closed.stop()
        try Self.writeConfig(scratch.path, upstreamBase: "http://127.0.0.1:\(closed.port)", snapshotDirectory: scratch.sub("snap"))
        let server = try ServerProcess(directory: scratch.path)
        #expect(try await Self.waitFor200(server, "/manifest.json", seconds: 60) != nil)
        #expect(try await Self.request(server.url("/admin/refresh")).0 == 404)
        #expect(try await Self.request(server.url("/admin/refresh"), method: "POST", headers: ["Authorization": "Bearer x"]).0 != 202)
        #expect(server.terminate() == 0)
    }

    @Test func aStateDirectoryFromANewerServerIsRefusedWithTheVersion() throws {
        let scratch = ScratchDirectory("serve-newer")
        try Self.smallSnapshot(scratch.sub("snap"))
        try Self.writeConfig(scratch.path, upstreamBase: "http://127.0.0.1:9", snapshotDirectory: scratch.sub("snap"))
        try FileManager.default.createDirectory(atPath: scratch.sub("state"), withIntermediateDirectories: true)
        try Array(#"{"version":2}"#.utf8).write(to: scratch.sub("state/state.json"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FaultTests.listserverBinary())
        process.arguments = ["serve", "--config", scratch.sub("config.json"), "--port", "0"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(message.contains("state version 2"), "\(message)")
    }
}

/// The manifest as a device decodes it (ListSync's type).
typealias ListSyncManifest = ListSync.Manifest
