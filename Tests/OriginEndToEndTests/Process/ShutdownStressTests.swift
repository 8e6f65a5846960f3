import Foundation
import ListOrigin
import ListSync
import OriginTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM at spread delays into a refresh, into a publish, into an explain engine load and under
/// HTTP load, against the real `listserver serve`: every run exits 0 and the public directory is
/// still a whole set (its manifest parses and every list it names has that SHA-256).
///
/// The test command runs `LISTSERVER_SIGTERM_RUNS` runs (default 24, about half a minute);
/// `scripts/sigterm-stress.sh` runs 200.
@Suite(.serialized) struct ShutdownStressTests {
    static let token = "stress-s3cret"
    static var runs: Int { ProcessInfo.processInfo.environment["LISTSERVER_SIGTERM_RUNS"].flatMap { Int($0) } ?? 24 }

    enum Scenario: CaseIterable, CustomStringConvertible {
        case refresh, publish, explain, httpLoad
        var description: String { "\(self)".replacingOccurrences(of: "httpLoad", with: "HTTP load") }
    }

    /// A fresh upstream body per run, so every admin refresh converts and publishes.
    static func upstreamBody(_ round: Int) throws -> [UInt8] {
        try FixtureLists.easylist(lines: 1_500) + Array("||stress-round-\(round).example^\n".utf8)
    }

    @Test func everySIGTERMExitsZeroAndLeavesAWholeSet() async throws {
        let stress = try Stress()
        defer { stress.upstream.stop() }
        let window = try await stress.calibrate()
        var failures: [String] = []
        var counts: [String: Int] = [:]
        for run in 0..<Self.runs {
            let (status, problems) = try stress.sigterm(run: run, window: window)
            counts[status, default: 0] += 1
            failures += problems
        }
        print("sigterm-stress: \(Self.runs) runs: \(counts)")
        #expect(
            failures.isEmpty,
            "\(failures.count) of \(Self.runs) runs failed:\n\(failures.prefix(20).joined(separator: "\n"))")
    }

    /// How long a refresh (fetch → convert → publish) and an explain load take on this machine, so
    /// the SIGTERM delays land inside them on any machine.
    struct Window {
        var refreshSeconds: Double
        var explainSeconds: Double
    }

    /// One scratch directory and upstream that every `listserver serve` run of the test shares; each
    /// run gets a new upstream body, so every admin refresh converts and publishes.
    final class Stress {
        let scratch = ScratchDirectory("sigterm-stress")
        let upstream: UpstreamServer
        let environment = ["LISTSERVER_ADMIN_TOKEN": ShutdownStressTests.token]
        private var round = 0

        init() throws {
            try ListServerProcess.smallSnapshot(scratch.sub("snap"))
            upstream = try UpstreamServer()
            try nextUpstream()
            upstream.set(
                "/easyprivacy.txt",
                .serve(body: Array("[Adblock Plus 1.1]\n||tracker.example^\n||beacon.example^\n".utf8), etag: "\"p\""))
            // A short grace keeps each run short; a refresh still running after it is cut off by the exit.
            try ListServerProcess.writeConfig(
                scratch.path, upstreamBase: "http://127.0.0.1:\(upstream.port)", snapshotDirectory: scratch.sub("snap"),
                extra: #", "http": {"shutdownGraceSeconds": 0.5}"#)
        }

        func nextUpstream() throws {
            round += 1
            upstream.set(
                "/easylist.txt", .serve(body: try ShutdownStressTests.upstreamBody(round), etag: "\"\(round)\""))
        }

        private var manifest: [UInt8]? { ShutdownStressTests.manifest(scratch.sub("public")) }

        /// Times one admin refresh and one explain load on a warm server, then stops it with SIGTERM.
        func calibrate() async throws -> Window {
            let first = try ListServerProcess(directory: scratch.path, environment: environment)
            let warm = await eventually(timeout: 60) { self.manifest != nil && ShutdownStressTests.idle(first) }
            try #require(warm, "the first start never published a set")
            try nextUpstream()
            let before = manifest
            var started = Date()
            try ShutdownStressTests.post(first, "/admin/refresh")
            let refreshed = await eventually(timeout: 60, interval: 0.01) { self.manifest != before }
            try #require(refreshed, "the admin refresh never published")
            let refreshSeconds = Date().timeIntervalSince(started)
            started = Date()
            let loaded = await eventually(timeout: 60, interval: 0.01) {
                ShutdownStressTests.explainStatus(first) == 200
            }
            try #require(loaded, "the explain engine never loaded")
            let explainSeconds = Date().timeIntervalSince(started)
            let calibration = ShutdownStressTests.terminate(first)
            #expect(calibration == "exit 0", "calibration run: \(calibration)")
            print(
                "sigterm-stress: refresh \(String(format: "%.2f", refreshSeconds)) s, explain load \(String(format: "%.2f", explainSeconds)) s, \(ShutdownStressTests.runs) runs"
            )
            return Window(refreshSeconds: refreshSeconds, explainSeconds: explainSeconds)
        }

        /// Starts a server, begins the run's scenario, sends SIGTERM after a delay spread over the
        /// scenario's window, and returns how it ended and what is wrong with the public directory.
        func sigterm(run: Int, window: Window) throws -> (status: String, problems: [String]) {
            let scenario = Scenario.allCases[run % Scenario.allCases.count]
            // Spread over the window: a low-discrepancy fraction per run of this scenario.
            let fraction = (Double(run / Scenario.allCases.count) * 0.618_034).truncatingRemainder(dividingBy: 1)
            try nextUpstream()
            let server = try ListServerProcess(directory: scratch.path, environment: environment)
            let load =
                scenario == .httpLoad
                ? HTTPLoad(port: server.port, files: ShutdownStressTests.fileNames(scratch.sub("public"))) : nil
            let delay: Double
            switch scenario {
            case .refresh:
                try ShutdownStressTests.post(server, "/admin/refresh")
                delay = fraction * window.refreshSeconds
            case .publish:
                try ShutdownStressTests.post(server, "/admin/refresh")
                delay = window.refreshSeconds * (0.7 + 0.5 * fraction)  // the end of a refresh: the publish
            case .explain:
                _ = ShutdownStressTests.explainStatus(server)
                delay = fraction * window.explainSeconds * 1.2
            case .httpLoad:
                delay = 0.05 + fraction * 0.5
            }
            // The delay is the point of the test: where in the work the signal lands.
            usleep(UInt32(delay * 1_000_000))
            let status = ShutdownStressTests.terminate(server)
            load?.stop()
            var problems: [String] = []
            if status != "exit 0" {
                problems.append("run \(run) (\(scenario), SIGTERM after \(String(format: "%.3f", delay)) s): \(status)")
            }
            if let broken = ShutdownStressTests.wholeSetProblem(scratch.sub("public")) {
                problems.append("run \(run) (\(scenario)): the public directory is not a whole set: \(broken)")
            }
            return (status, problems)
        }
    }

    // MARK: helpers

    static func manifest(_ directory: String) -> [UInt8]? {
        FileManager.default.contents(atPath: directory + "/manifest.json").map(Array.init)
    }

    static func fileNames(_ directory: String) -> [String] {
        guard let bytes = manifest(directory), let decoded = try? Manifest.decode(Data(bytes)) else { return [] }
        return ["manifest.json"] + decoded.lists.map(\.file)
    }

    /// Nil when the manifest parses and every list it names is there with its SHA-256.
    static func wholeSetProblem(_ directory: String) -> String? {
        guard let bytes = manifest(directory) else { return "no manifest.json" }
        let decoded: Manifest
        do { decoded = try Manifest.decode(Data(bytes)) } catch { return "manifest.json does not parse: \(error)" }
        for entry in decoded.lists {
            guard let data = FileManager.default.contents(atPath: directory + "/" + entry.file) else {
                return "\(entry.file) is missing"
            }
            if SHA256Digest.hex(of: data) != entry.sha256 {
                return "\(entry.file) does not have the manifest's SHA-256"
            }
        }
        return nil
    }

    static func idle(_ server: ListServerProcess) -> Bool {
        guard let response = try? RawHTTPResponse.get(port: server.port, path: "/status"),
            let status = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let upstreams = status["upstreams"] as? [[String: Any]]
        else { return false }
        return upstreams.count == 2 && upstreams.allSatisfy { $0["lastResult"] as? String == "updated" }
    }

    static func post(_ server: ListServerProcess, _ path: String) throws {
        let fd = try LoopbackSocket.connect(port: server.port)
        defer { close(fd) }
        let request = Array(
            "POST \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                .utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var buffer = [UInt8](repeating: 0, count: 512)
        _ = recv(fd, &buffer, buffer.count, 0)
    }

    static func explainStatus(_ server: ListServerProcess) -> Int? {
        try? RawHTTPResponse.get(
            port: server.port, path: "/explain?url=https%3A%2F%2Fads.example%2Fx.js",
            headers: ["Authorization": "Bearer \(token)"]
        ).status
    }

    /// SIGTERM, then a bounded wait: "exit N", "signal N" or "hung".
    static func terminate(_ server: ListServerProcess) -> String {
        let process = server.process
        process.signal(SIGTERM)
        _ = eventually(timeout: 30, interval: 0.005) { !process.isRunning }
        if process.isRunning {
            process.signal(SIGKILL)
            process.wait()
            return "hung"
        }
        return process.terminatingSignal.map { "signal \($0)" } ?? "exit \(process.wait())"
    }

    /// Two threads GETting the set's files on keep-alive-less connections until stopped.
    final class HTTPLoad: @unchecked Sendable {
        private let lock = NSLock()
        private var stopped = false
        private var threads: [Thread] = []
        private let done = DispatchGroup()

        init(port: Int, files: [String]) {
            for offset in 0..<2 {
                done.enter()
                let thread = Thread { [self] in
                    var index = offset
                    while !isStopped, !files.isEmpty {
                        _ = try? RawHTTPResponse.get(
                            port: port, path: "/" + files[index % files.count], headers: ["Accept-Encoding": "gzip"])
                        index += 1
                    }
                    done.leave()
                }
                threads.append(thread)
                thread.start()
            }
        }

        private var isStopped: Bool { lock.withLock { stopped } }

        func stop() {
            lock.withLock { stopped = true }
            _ = done.wait(timeout: .now() + 15)
        }
    }
}
