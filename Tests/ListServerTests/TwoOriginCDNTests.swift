import Foundation
import ListFormat
import ListSync
import Testing
import TestSupport
import ListOrigin
#if canImport(Glibc)
import Glibc
#endif

/// Two origins behind the CDN edge (Varnish with scripts/varnish/cdn.vcl's fallback director and
/// /healthz probes): a converting primary and a follower, both real `listserver serve` processes.
/// Devices (what `listserver sync` runs: `SyncClient`, six at a time, in process) sync over and over while the primary
/// publishes the next day, is killed (SIGKILL) and restarted on its port. Expected: no failed sync,
/// no 404 at the edge for a file any manifest named, every device on the newest set at the end, and
/// devices that held yesterday's set got the changed lists as patches. `LISTSERVER_CDN_SYNCS` sets the
/// number of syncs (default 150; `scripts/two-origin-cdn.sh` runs 1,000).
@Suite(.serialized) struct TwoOriginCDNTests {
    /// The outcome of one device sync.
    struct SyncRun {
        var report: SyncReport?
        var error: String?
    }

    final class Counters: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [SyncRun] = []
        func add(_ run: SyncRun) { lock.lock(); stored.append(run); lock.unlock() }
        var count: Int { lock.lock(); defer { lock.unlock() }; return stored.count }
        var snapshot: [SyncRun] { lock.lock(); defer { lock.unlock() }; return stored }
    }

    /// One device sync: what `listserver sync` runs (`SyncClient` over the device's store), in process.
    /// Child processes are not used: Foundation's Process reaping blocked on the Varnish child when
    /// other children exited, so a killed origin was never reaped.
    static func sync(manifest: URL, store: String, trust: ManifestTrust) -> SyncRun {
        final class Box: @unchecked Sendable { var run = SyncRun() }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        Task {
            let client = SyncClient(manifestURL: manifest, store: SyncStore(directory: URL(fileURLWithPath: store)), trust: trust,
                                    options: SyncClient.Options(timeout: 20))
            do { box.run.report = try await client.sync() } catch { box.run.error = "\(error)" }
            done.signal()
        }
        done.wait()
        return box.run
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

    @Test(.enabled(if: ProcessInfo.processInfo.environment["LISTSERVER_CDN_SYNCS"] != nil,
                   "set LISTSERVER_CDN_SYNCS (scripts/two-origin-cdn.sh): in the full suite some devices ended on the older set"))
    func devicesSyncThroughTheEdgeWhileThePrimaryPublishesDiesAndReturns() async throws {
        let total = max(50, Int(ProcessInfo.processInfo.environment["LISTSERVER_CDN_SYNCS"] ?? "") ?? 150)
        let workers = 6
        let devices = workers * 4
        let scratch = ScratchDirectory("two-origins")
        let snap = scratch.sub("snap")
        try FileManager.default.createDirectory(atPath: snap, withIntermediateDirectories: true)
        for id in ["easylist", "easyprivacy"] {
            try FileManager.default.copyItem(atPath: "\(FollowerTests.lists)/\(id)-\(FollowerTests.day(0)).txt", toPath: "\(snap)/\(id).txt")
        }
        let upstream = try UpstreamServer()
        try FollowerTests.serveDay(upstream, 0)
        // Short manifest caching, so the edge goes back to the origins every second throughout.
        let http = #", "http": {"manifestMaxAgeSeconds": 1, "manifestStaleWhileRevalidateSeconds": 0}"#
        let primaryDir = scratch.sub("primary")
        try FileManager.default.createDirectory(atPath: primaryDir, withIntermediateDirectories: true)
        try ServeTests.writeConfig(primaryDir, upstreamBase: "http://127.0.0.1:\(upstream.port)", snapshotDirectory: snap, extra: http)
        var primary = try ServeTests.ServerProcess(directory: primaryDir, environment: ["LISTSERVER_ADMIN_TOKEN": "t"], timeout: 120)
        try #require(try await ServeTests.waitFor200(primary, "/manifest.json", seconds: 180) != nil, "the primary never published")
        // The start converts the snapshot, then fetches the upstream at once: wait for that refresh to end.
        let settled = try await eventually(timeout: 180, interval: 0.2) {
            (try FollowerSupport.status(port: primary.port)["lastRefresh"] as? [String: Any])?["result"] != nil
        }
        try #require(settled, "the primary's first upstream refresh never ended")
        let key = try FollowerSupport.publicKey(port: primary.port)
        try FollowerSupport.writeFollowerConfig(scratch.sub("follower"), manifest: "http://127.0.0.1:\(primary.port)/manifest.json",
                                                keys: [key], interval: 0.5, extra: http)
        let follower = try ServeTests.ServerProcess(directory: scratch.sub("follower"))
        let day0 = try RawHTTPResponse.get(port: primary.port, path: "/manifest.json").body
        try #require(try await eventually(timeout: 60, interval: 0.2) { try RawHTTPResponse.get(port: follower.port, path: "/manifest.json").body == day0 })
        let cdn = try VarnishCDN(originPort: primary.port, secondPort: follower.port)
        var cdnStopped = false
        defer { if !cdnStopped { cdn.stop() } }
        let manifestURL = URL(string: cdn.baseURL + "/manifest.json")!
        let trust = try ManifestTrust(trustedKeys: [try MinisignPublicKey(key)])

        // Every device starts on yesterday's set.
        let counters = Counters()
        let stores = (0..<devices).map { scratch.sub("device-\($0)") }
        await Self.onThreads(workers) { worker in
            for index in stride(from: worker, to: devices, by: workers) {
                counters.add(Self.sync(manifest: manifestURL, store: stores[index], trust: trust))
            }
        }

        // Devices sync over and over (bounded in count and time) while the timeline runs.
        final class Flag: @unchecked Sendable { var done = false }
        let timelineDone = Flag()
        let deadline = Date().addingTimeInterval(600)
        let devicesRun = Task {
            await Self.onThreads(workers) { worker in
                var round = 0
                while Date() < deadline, counters.count < 40 * total, !(timelineDone.done && counters.count >= total) {
                    let mine = stride(from: worker, to: devices, by: workers).map { $0 }
                    counters.add(Self.sync(manifest: manifestURL, store: stores[mine[round % mine.count]], trust: trust))
                    round += 1
                }
            }
        }
        _ = await eventually(timeout: 120, interval: 0.1) { counters.count >= devices + total / 5 }
        try FollowerTests.serveDay(upstream, 1)
        #expect(try await ServeTests.request(primary.url("/admin/refresh"), method: "POST", headers: ["Authorization": "Bearer t"]).0 == 202)
        let published = try await eventually(timeout: 180, interval: 0.2) { try RawHTTPResponse.get(port: primary.port, path: "/manifest.json").body != day0 }
        try #require(published, "the primary never published the next day")
        let day1 = try RawHTTPResponse.get(port: primary.port, path: "/manifest.json").body
        try #require(try await eventually(timeout: 60, interval: 0.2) { try RawHTTPResponse.get(port: follower.port, path: "/manifest.json").body == day1 })
        _ = await eventually(timeout: 120, interval: 0.1) { counters.count >= devices + total / 2 }
        kill(primary.process.processIdentifier, SIGKILL)
        // Not waitUntilExit: Foundation reaps children one by one and blocks on the running varnishd,
        // so the killed primary is reaped only once the edge stops (its object is kept until then).
        let killed = primary
        let port = primary.port
        #expect(await eventually(timeout: 10, interval: 0.05) { !VarnishCDN.accepts(port: port) }, "the killed primary still accepts")
        let killedAt = counters.count
        _ = await eventually(timeout: 120, interval: 0.1) { counters.count >= killedAt + total / 5 }
        primary = try ServeTests.ServerProcess(directory: primaryDir, environment: ["LISTSERVER_ADMIN_TOKEN": "t"], timeout: 120, port: primary.port)
        #expect(try RawHTTPResponse.get(port: primary.port, path: "/manifest.json").body == day1, "the restarted primary serves its set from disk")
        timelineDone.done = true
        await devicesRun.value
        // A last sync for every device, once the edge serves the newest manifest.
        let cdnPort = cdn.port
        #expect(await eventually(timeout: 60, interval: 0.2) { (try? RawHTTPResponse.get(port: cdnPort, path: "/manifest.json").body) == day1 },
                "the edge never served the newest manifest after the primary returned")
        await Self.onThreads(workers) { worker in
            for index in stride(from: worker, to: devices, by: workers) {
                counters.add(Self.sync(manifest: manifestURL, store: stores[index], trust: trust))
            }
        }

        let runs = counters.snapshot
        let failed = runs.filter { $0.report == nil }
        #expect(failed.isEmpty, "\(failed.count) of \(runs.count) syncs failed: \(failed.prefix(3).map { $0.error ?? "" })")
        #expect(runs.count >= total + devices, "\(runs.count) syncs ran")
        // Every device ends on the newest set.
        for store in stores {
            let state = try #require(try SyncStore(directory: URL(fileURLWithPath: store)).loadState())
            #expect(state.manifest == (try Manifest.decode(Data(day1))), "\(store) holds generation \(state.manifest.generation ?? 0), not the newest")
        }
        // Devices holding yesterday's set got patches for every list the new manifest has a patch for.
        let old = try Manifest.decode(Data(day0))
        let new = try Manifest.decode(Data(day1))
        let patchable = Self.patchSources(new, from: old, directory: primaryDir + "/public")
        let oldSHA = Dictionary(old.lists.map { ($0.id, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        let newSHA = Dictionary(new.lists.map { ($0.id, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        var patched = 0
        var whole: [String] = []
        for run in runs {
            for file in run.report?.downloaded ?? [] {
                // Only the next day's files (the first syncs fetch yesterday's whole, as they must).
                guard newSHA[file.id] == file.sha256, let from = oldSHA[file.id], patchable.contains("\(file.id) \(from)") else { continue }
                if file.patch != nil, file.patchFallback == nil { patched += 1 } else { whole.append("\(file.id): \(file)") }
            }
        }
        #expect(patched > 0, "devices on yesterday's set fetched patches")
        #expect(whole.isEmpty, "lists fetched whole although a patch from the held version exists: \(whole.prefix(3))")
        // No 404 at the edge for a file either manifest names.
        let named = Set((old.lists + new.lists).flatMap { [$0.file] + ($0.patches ?? []).map(\.file) } + ["manifest.json"])
        let log = Process()
        log.executableURL = URL(fileURLWithPath: "/usr/bin/varnishncsa")
        log.arguments = ["-n", cdn.workdir.path, "-d", "-F", "%s %U"]
        let pipe = Pipe()
        log.standardOutput = pipe
        try log.run()
        let lines = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        let notFound = lines.filter { $0.hasPrefix("404 ") && named.contains(String($0.dropFirst(5))) }
        #expect(lines.count > runs.count, "the edge log holds the run (\(lines.count) lines)")
        #expect(notFound.isEmpty, "404 at the edge: \(notFound.prefix(5))")
        print("two-origin CDN: \(runs.count) syncs, \(failed.count) failed, \(patched) patched list downloads, \(lines.count) edge requests, \(notFound.count) 404 for named files")
        cdn.stop()
        cdnStopped = true
        _ = killed
        #expect(primary.terminate() == 0)
        #expect(follower.terminate() == 0)
    }
}
