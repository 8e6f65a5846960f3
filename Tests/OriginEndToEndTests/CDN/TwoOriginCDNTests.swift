import Foundation
import ListFormat
import ListOrigin
import ListSync
import OriginTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Two origins behind the CDN edge (Varnish with scripts/varnish/cdn.vcl's fallback director and
/// /healthz probes): a converting primary and a follower, both real `listserver serve` processes.
/// Devices (`listserver sync`, the binary, six at a time) sync over and over until the timeline
/// ends while the primary publishes the next day, is killed (SIGKILL) and restarted on its port.
/// Expected: no failed sync (a device that got the newer manifest and is then handed the older one
/// refuses it as a rollback, which counts as failed), no 404 at the edge for a file any manifest
/// named, every device on the newest set after one last sync, and devices that held yesterday's set
/// got the changed lists as patches. `LISTSERVER_CDN_SYNCS` sets the least number of syncs (default
/// 150; `scripts/two-origin-cdn.sh` runs 1,000); the run is bounded by a 600 s deadline.
@Suite(.serialized) struct TwoOriginCDNTests {
    /// The outcome of one device sync.
    struct SyncRun {
        var report: SyncReport?
        var error: String?
    }

    final class Counters: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [SyncRun] = []
        func add(_ run: SyncRun) {
            lock.lock()
            stored.append(run)
            lock.unlock()
        }
        var count: Int {
            lock.lock()
            defer { lock.unlock() }
            return stored.count
        }
        var snapshot: [SyncRun] {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
    }

    /// One device sync: `listserver sync --json`, spawned with posix_spawn and reaped by its own
    /// pid (`ChildRun`), so the running varnishd and origins never hold up its reaping.
    static func sync(binary: String, manifest: URL, store: String, key: String) -> SyncRun {
        do {
            let run = try ChildRun.run(
                binary,
                [
                    "sync", "--manifest", manifest.absoluteString, "--dir", store, "--trusted-key", key,
                    "--timeout", "20", "--json",
                ], timeout: 90)
            guard run.status == 0 else { return SyncRun(report: nil, error: "exit \(run.status): \(run.stderr)") }
            return SyncRun(report: try JSONDecoder().decode(SyncReport.self, from: run.stdout), error: nil)
        } catch {
            return SyncRun(report: nil, error: "\(error)")
        }
    }

    /// The edge's backend fetches of the manifest from varnishlog, runs of equal lines folded with their count.
    static func manifestFetches(_ cdn: VarnishCDN) -> [String] {
        let filter = #"BereqURL eq "/manifest.json""#
        guard
            let log = try? ChildRun.run(
                "/usr/bin/varnishncsa",
                [
                    "-n", cdn.workdir.path, "-d", "-b", "-q", filter,
                    "-F", "%{%H:%M:%S}t %{VSL:BackendOpen[2]}x %s %{ETag}o",
                ], timeout: 60)
        else {
            return ["varnishncsa did not run"]
        }
        let lines = log.stdoutText.split(separator: "\n").map(String.init)
        var folded: [(first: String, last: String, fetch: String, count: Int)] = []
        for line in lines {
            let time = String(line.prefix { $0 != " " })
            let fetch = String(line.dropFirst(time.count))
            if let last = folded.last, last.fetch == fetch {
                folded[folded.count - 1].last = time
                folded[folded.count - 1].count += 1
            } else {
                folded.append((time, time, fetch, 1))
            }
        }
        return folded.map { "\($0.first)–\($0.last)\($0.fetch) ×\($0.count)" }
    }

    /// Runs `body(0..<count)` on `count` threads of their own and returns when all are done, without
    /// blocking the test's (cooperative) thread: blocked there, child-process bookkeeping can stall.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for index in 0..<count {
                group.enter()
                Thread.detachNewThread {
                    body(index)
                    group.leave()
                }
            }
            group.notify(queue: .global()) { continuation.resume() }
        }
    }

    /// Patches by (list id, from sha256) in a manifest.
    /// "<id> <from sha256>" for every patch `manifest` offers from a version in `old`: listed in the
    /// manifest (older servers), or published under its derived name in `directory`.
    static func patchSources(_ manifest: Manifest, from old: Manifest, directory: String) -> Set<String> {
        var sources = Set(manifest.lists.flatMap { entry in (entry.patches ?? []).map { "\(entry.id) \($0.from)" } })
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            guard let parsed = PatchFileName(parsing: name) else { continue }
            for entry in manifest.lists where entry.id == parsed.listID && entry.sha256.hasPrefix(parsed.toPrefix) {
                for held in old.lists where held.id == entry.id && held.sha256.hasPrefix(parsed.fromPrefix) {
                    sources.insert("\(entry.id) \(held.sha256)")
                }
            }
        }
        return sources
    }

    /// A converting primary on day 0 (its first upstream refresh over) and a follower serving the
    /// same set; both answer with 1 s manifest caching, so the edge goes back to them every second.
    struct Origins {
        var primary: ListServerProcess
        var primaryDir: String
        var follower: ListServerProcess
        var upstream: UpstreamServer
        var key: String
        var day0: [UInt8]
    }

    static func startOrigins(_ scratch: ScratchDirectory) async throws -> Origins {
        let http = #", "http": {"manifestMaxAgeSeconds": 1, "manifestStaleWhileRevalidateSeconds": 0}"#
        let (primary, primaryDir, upstream) = try await FollowerSupport.startPrimary(scratch, extra: http)
        // The start converts the snapshot, then fetches the upstream at once: wait for that refresh to end.
        let settled = try await eventually(timeout: 180, interval: 0.2) {
            (try FollowerSupport.status(port: primary.port)["lastRefresh"] as? [String: Any])?["result"] != nil
        }
        try #require(settled, "the primary's first upstream refresh never ended")
        let key = try FollowerSupport.publicKey(port: primary.port)
        try FollowerSupport.writeFollowerConfig(
            scratch.sub("follower"), manifest: "http://127.0.0.1:\(primary.port)/manifest.json",
            keys: [key], interval: 0.5, extra: http)
        let follower = try ListServerProcess(directory: scratch.sub("follower"))
        let day0 = try RawHTTPResponse.get(port: primary.port, path: "/manifest.json").body
        try #require(
            try await eventually(timeout: 60, interval: 0.2) {
                try RawHTTPResponse.get(port: follower.port, path: "/manifest.json").body == day0
            })
        return Origins(
            primary: primary, primaryDir: primaryDir, follower: follower, upstream: upstream, key: key, day0: day0)
    }

    /// Downloads of the next day's lists by devices that held yesterday's version, where a patch
    /// from that version exists: how many came as patches, and the ones that came whole.
    static func patchedDownloads(_ runs: [SyncRun], old: Manifest, new: Manifest, publicDirectory: String) -> (
        patched: Int, whole: [String]
    ) {
        let patchable = patchSources(new, from: old, directory: publicDirectory)
        let oldSHA = Dictionary(old.lists.map { ($0.id, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        let newSHA = Dictionary(new.lists.map { ($0.id, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        var patched = 0
        var whole: [String] = []
        for run in runs {
            for file in run.report?.downloaded ?? [] {
                // Only the next day's files (the first syncs fetch yesterday's whole, as they must).
                guard newSHA[file.id] == file.sha256, let from = oldSHA[file.id],
                    patchable.contains("\(file.id) \(from)")
                else { continue }
                if file.patch != nil, file.patchFallback == nil {
                    patched += 1
                } else {
                    whole.append("\(file.id): \(file)")
                }
            }
        }
        return (patched, whole)
    }

    /// The edge's log lines (`status path`) and those that are a 404 for one of `named`.
    static func edgeNotFound(_ cdn: VarnishCDN, named: Set<String>) throws -> (lines: Int, notFound: [Substring]) {
        let log = try ChildRun.run("/usr/bin/varnishncsa", ["-n", cdn.workdir.path, "-d", "-F", "%s %U"], timeout: 60)
        let lines = log.stdoutText.split(separator: "\n")
        return (lines.count, lines.filter { $0.hasPrefix("404 ") && named.contains(String($0.dropFirst(5))) })
    }

    @Test func devicesSyncThroughTheEdgeWhileThePrimaryPublishesDiesAndReturns() async throws {
        let total = max(50, Int(ProcessInfo.processInfo.environment["LISTSERVER_CDN_SYNCS"] ?? "") ?? 150)
        let workers = 6
        let devices = workers * 4
        let began = Date()
        let scratch = ScratchDirectory("two-origins")
        var origins = try await Self.startOrigins(scratch)
        let (primaryDir, follower, upstream, key, day0) = (
            origins.primaryDir, origins.follower, origins.upstream, origins.key, origins.day0
        )
        let cdn = try VarnishCDN(originPort: origins.primary.port, secondPort: follower.port)
        var cdnStopped = false
        defer { if !cdnStopped { cdn.stop() } }
        let manifestURL = URL(string: cdn.baseURL + "/manifest.json")!
        let binary = try ListServerBinary.path()

        // Every device starts on yesterday's set.
        let counters = Counters()
        let stores = (0..<devices).map { scratch.sub("device-\($0)") }
        await Self.onThreads(workers) { worker in
            for index in stride(from: worker, to: devices, by: workers) {
                counters.add(Self.sync(binary: binary, manifest: manifestURL, store: stores[index], key: key))
            }
        }

        // Devices sync over and over (bounded in count and time) while the timeline runs.
        final class Flag: @unchecked Sendable { var done = false }
        let timelineDone = Flag()
        let deadline = Date().addingTimeInterval(600)
        let devicesRun = Task {
            await Self.onThreads(workers) { worker in
                var round = 0
                while Date() < deadline, !(timelineDone.done && counters.count >= total) {
                    let mine = stride(from: worker, to: devices, by: workers).map { $0 }
                    counters.add(
                        Self.sync(
                            binary: binary, manifest: manifestURL, store: stores[mine[round % mine.count]], key: key))
                    round += 1
                }
            }
        }
        #expect(
            await eventually(timeout: 120, interval: 0.1) { counters.count >= devices + total / 5 },
            "devices stopped syncing before the publish")
        try FollowerSupport.serveDay(upstream, 1)
        #expect(
            try await ListServerProcess.request(
                origins.primary.url("/admin/refresh"), method: "POST", headers: ["Authorization": "Bearer t"]
            ).0 == 202)
        let published = try await eventually(timeout: 180, interval: 0.2) {
            try RawHTTPResponse.get(port: origins.primary.port, path: "/manifest.json").body != day0
        }
        try #require(published, "the primary never published the next day")
        let day1 = try RawHTTPResponse.get(port: origins.primary.port, path: "/manifest.json").body
        try #require(
            try await eventually(timeout: 60, interval: 0.2) {
                try RawHTTPResponse.get(port: follower.port, path: "/manifest.json").body == day1
            })
        #expect(
            await eventually(timeout: 120, interval: 0.1) { counters.count >= devices + total / 2 },
            "devices stopped syncing after the publish")
        origins.primary.process.signal(SIGKILL)
        origins.primary.process.wait()
        let port = origins.primary.port
        #expect(
            await eventually(timeout: 10, interval: 0.05) { !VarnishCDN.accepts(port: port) },
            "the killed primary still accepts")
        let killedAt = counters.count
        #expect(
            await eventually(timeout: 120, interval: 0.1) { counters.count >= killedAt + total / 5 },
            "devices stopped syncing while the primary was down")
        origins.primary = try ListServerProcess(
            directory: primaryDir, environment: ["LISTSERVER_ADMIN_TOKEN": "t"], timeout: 120,
            port: origins.primary.port)
        #expect(
            try RawHTTPResponse.get(port: origins.primary.port, path: "/manifest.json").body == day1,
            "the restarted primary serves its set from disk")
        timelineDone.done = true
        await devicesRun.value
        // A last sync for every device, at once: both origins serve the newest set, so the edge must too.
        await Self.onThreads(workers) { worker in
            for index in stride(from: worker, to: devices, by: workers) {
                counters.add(Self.sync(binary: binary, manifest: manifestURL, store: stores[index], key: key))
            }
        }
        let wall = Date().timeIntervalSince(began)

        let runs = counters.snapshot
        let failed = runs.filter { $0.report == nil }
        let stale = try stores.filter {
            try SyncStore(directory: URL(fileURLWithPath: $0)).loadState()?.manifest
                != (try Manifest.decode(Data(day1)))
        }
        if !failed.isEmpty || !stale.isEmpty {
            // Which origin gave the edge which manifest, when: the first thing to read when this fails.
            print(
                "two-origin CDN: manifest fetches at the edge (time, origin, status, ETag, count):\n"
                    + Self.manifestFetches(cdn).joined(separator: "\n"))
        }
        #expect(
            failed.isEmpty, "\(failed.count) of \(runs.count) syncs failed: \(failed.prefix(3).map { $0.error ?? "" })")
        #expect(runs.count >= total + devices, "\(runs.count) syncs ran")
        // Every device ends on the newest set.
        for store in stale {
            let state = try SyncStore(directory: URL(fileURLWithPath: store)).loadState()
            Issue.record(
                "\(store) holds generation \(state?.manifest.generation ?? 0), not the newest (\(try Manifest.decode(Data(day1)).generation ?? 0))"
            )
        }
        // Devices holding yesterday's set got patches for every list the new manifest has a patch for.
        let old = try Manifest.decode(Data(day0))
        let new = try Manifest.decode(Data(day1))
        let (patched, whole) = Self.patchedDownloads(runs, old: old, new: new, publicDirectory: primaryDir + "/public")
        #expect(patched > 0, "devices on yesterday's set fetched patches")
        #expect(whole.isEmpty, "lists fetched whole although a patch from the held version exists: \(whole.prefix(3))")
        // No 404 at the edge for a file either manifest names.
        let named = Set(
            (old.lists + new.lists).flatMap { [$0.file] + ($0.patches ?? []).map(\.file) } + ["manifest.json"])
        let (lines, notFound) = try Self.edgeNotFound(cdn, named: named)
        #expect(lines > runs.count, "the edge log holds the run (\(lines) lines)")
        #expect(notFound.isEmpty, "404 at the edge: \(notFound.prefix(5))")
        print(
            "two-origin CDN: \(runs.count) syncs (listserver sync), \(failed.count) failed, \(patched) patched list downloads, \(lines) edge requests, "
                + "\(notFound.count) 404 for named files, \(stores.count - stale.count) of \(stores.count) devices on the newest set, \(Int(wall)) s"
        )
        cdn.stop()
        cdnStopped = true
        #expect(origins.primary.terminate() == 0)
        #expect(follower.terminate() == 0)
    }
}
