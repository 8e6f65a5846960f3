import Converter
import Foundation
import ListSync
import Testing
@testable import ListServer
#if canImport(Glibc)
import Glibc
#endif

/// Local faults, for real: a public directory that runs out of space mid-publish (a small tmpfs),
/// a read-only state directory (a read-only bind mount), and kill -9 during publishing.
/// Needs root (mount); CI runs as root. Without it the tests fail and say so.
@Suite(.serialized) struct FaultTests {
    /// Runs a command, returning its exit status and output.
    @discardableResult
    static func shell(_ command: String) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command + " 2>&1"]
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch { return (-1, "\(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A list of `rules` rules whose url-filters are random hex, so gzip cannot shrink it much.
    static func incompressibleList(_ id: String, rules: Int) -> RuleList {
        var json = Array("[".utf8)
        for index in 0..<rules {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            let noise = (0..<16).map { _ in String(format: "%08x", UInt32.random(in: 0...UInt32.max)) }.joined()
            json += Array(#"{"trigger":{"url-filter":"\#(noise)"},"action":{"type":"block"}}"#.utf8)
        }
        json.append(UInt8(ascii: "]"))
        return RuleList(id: id, json: json, ruleCount: rules)
    }

    static func output(_ lists: [RuleList]) -> ConversionOutput {
        ConversionOutput(lists: lists, report: ConversionReport(sources: [], lists: []), layoutState: Array("{}".utf8))
    }

    /// Checks the invariant every reader relies on: the manifest names only files that exist with
    /// its hash (and a gzip sibling that inflates to the same bytes). Returns the problems found.
    static func manifestProblems(in directory: String) -> [String] {
        let manifestPath = directory + "/manifest.json"
        guard let data = FileManager.default.contents(atPath: manifestPath) else { return [] }
        guard let manifest = try? JSONDecoder().decode(Manifest.self, from: data) else { return ["manifest.json does not parse: \(data.count) bytes"] }
        var problems: [String] = []
        for entry in manifest.lists {
            guard let bytes = FileManager.default.contents(atPath: directory + "/" + entry.file) else {
                problems.append("\(entry.file) missing")
                continue
            }
            if SHA256.hex(bytes) != entry.sha256 { problems.append("\(entry.file) has the wrong hash") }
            guard let gzip = FileManager.default.contents(atPath: directory + "/" + entry.file + ".gz") else {
                problems.append("\(entry.file).gz missing")
                continue
            }
            if (try? Gzip.decompress(Array(gzip), limit: 1 << 26)) != Array(bytes) { problems.append("\(entry.file).gz does not match") }
        }
        return problems
    }

    @Test func publicDirectoryRunningOutOfSpaceMidPublishKeepsTheServedSet() throws {
        let scratch = ScratchDirectory("enospc")
        let mountPoint = scratch.sub("public")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mounted = Self.shell("mount -t tmpfs -o size=256k tmpfs \(mountPoint)")
        try #require(mounted.status == 0, "this test mounts a 256 KB tmpfs and needs root: \(mounted.output)")
        defer { Self.shell("umount \(mountPoint)") }

        let publisher = Publisher(writer: SetWriter(directory: mountPoint), gracePeriod: 3600, gate: nil, log: LogLines().log)
        var history: [PersistentState.PublishRecord] = []
        let small = [Self.incompressibleList("a", rules: 20), Self.incompressibleList("b", rules: 20)]
        let first = try publisher.publish(Self.output(small), history: &history)
        let manifestBefore = try Data(contentsOf: URL(fileURLWithPath: mountPoint + "/manifest.json"))

        // The first new list fits, the second (≈ 2 × 600 KB with its gzip) cannot.
        let big = [Self.incompressibleList("a", rules: 25), Self.incompressibleList("b", rules: 3000)]
        #expect {
            try publisher.publish(Self.output(big), history: &history)
        } throws: { error in
            guard case PublishError.write(_, let reason) = error else { return false }
            return reason.contains("No space left on device")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: mountPoint + "/manifest.json")) == manifestBefore, "the manifest is untouched")
        #expect(Self.manifestProblems(in: mountPoint).isEmpty)
        let names = try FileManager.default.contentsOfDirectory(atPath: mountPoint)
        #expect(!names.contains { $0.contains(".tmp-") }, "no temp file is left behind: \(names)")
        for name in first.plan.fileNames { #expect(FileManager.default.fileExists(atPath: mountPoint + "/" + name)) }
        let (content, _) = try SiteContentLoader(publisher: publisher).load(history: history)
        #expect(content.manifest?.identity == Array(manifestBefore), "the last good set is what gets served")

        // Once space is back (smaller lists), publishing works again.
        let next = try publisher.publish(Self.output([Self.incompressibleList("a", rules: 10), Self.incompressibleList("b", rules: 10)]), history: &history)
        #expect(next.manifestChanged)
        #expect(Self.manifestProblems(in: mountPoint).isEmpty)
    }

    @Test func fullDiskDuringARefreshIsReportedInStatus() throws {
        var harness = try RefreshTests.Harness()
        let mountPoint = harness.directory.sub("public")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mounted = Self.shell("mount -t tmpfs -o size=2m tmpfs \(mountPoint)")
        try #require(mounted.status == 0, "this test mounts a tmpfs and needs root: \(mounted.output)")
        defer { Self.shell("umount \(mountPoint)") }
        harness.server.set("/easylist.txt", .serve(body: try RefreshTests.easylist(lines: 400), etag: "\"a\""))
        #expect(harness.run().result == .published)
        let manifest = try Data(contentsOf: URL(fileURLWithPath: harness.manifestPath))
        // Fill the disk, then offer a new version.
        Self.shell("dd if=/dev/zero of=\(mountPoint)/filler bs=64k count=64 2>/dev/null; true")
        harness.server.set("/easylist.txt", .serve(body: try RefreshTests.easylist(lines: 1500), etag: "\"b\""))
        let summary = harness.run()
        guard case .failed(let reason) = summary.result else {
            Issue.record("expected the publish to fail on a full disk, got \(summary.result)")
            return
        }
        #expect(reason.contains("No space left on device"))
        #expect(harness.status.current.lastRefresh?.result == "failed")
        #expect(harness.status.current.lastRefresh?.error?.contains("No space left on device") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: harness.manifestPath)) == manifest)
        #expect(Self.manifestProblems(in: mountPoint).isEmpty)
        // Space back: the next refresh publishes the new version (the copy is in use, so no refetch is needed).
        unlink(mountPoint + "/filler")
        #expect(harness.run().result == .published)
    }

    @Test func readOnlyStateDirectoryKeepsTheSetAndSaysWhy() throws {
        var harness = try RefreshTests.Harness()
        harness.server.set("/easylist.txt", .serve(body: try RefreshTests.easylist(lines: 400), etag: "\"a\""))
        #expect(harness.run().result == .published)
        let manifest = try Data(contentsOf: URL(fileURLWithPath: harness.manifestPath))
        let stateDir = harness.pipeline.store.directory
        let mounted = Self.shell("mount --bind \(stateDir) \(stateDir) && mount -o remount,ro,bind \(stateDir)")
        try #require(mounted.status == 0, "this test makes a read-only bind mount and needs root: \(mounted.output)")
        defer { Self.shell("umount \(stateDir)") }
        harness.server.set("/easylist.txt", .serve(body: try RefreshTests.easylist(lines: 600), etag: "\"b\""))
        let summary = harness.run()
        #expect(summary.content == nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: harness.manifestPath)) == manifest)
        let upstream = try #require(harness.upstreamStatus)
        #expect(upstream.lastResult == "failed")
        #expect(upstream.lastError?.contains("Read-only file system") == true, "\(upstream.lastError ?? "nil")")
        #expect(harness.logLines.lines.contains { $0.contains("Read-only file system") })
    }

    /// The listserver executable built next to the test bundle.
    static func listserverBinary() throws -> String {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("listserver").path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("listserver").path,
            Bundle.main.bundleURL.appendingPathComponent("listserver").path,
        ]
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw UpstreamServer.ServerError("the listserver executable is not built next to the tests (looked at \(candidates)); run swift build first")
        }
        return path
    }

    @Test func killDashNineDuringPublishingNeverLeavesABrokenManifest() throws {
        let binary = try Self.listserverBinary()
        let scratch = ScratchDirectory("kill9")
        let directory = scratch.sub("public")
        let announcements = scratch.sub("rounds.txt")
        var kills = 0
        var killsMidWrite = 0
        var manifests = Set<Data>()
        var sawManifest = false
        for round in 0..<120 {
            _ = FileManager.default.createFile(atPath: announcements, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["fetch", "--publish-loop", directory]
            process.standardOutput = FileHandle(forWritingAtPath: announcements)
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Wait (bounded) until the loop is publishing, then kill at a random moment within the next rounds.
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline, process.isRunning,
                  ((try? String(contentsOfFile: announcements, encoding: .utf8)) ?? "").isEmpty {
                usleep(2_000)
            }
            usleep(UInt32.random(in: 0...120_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "round \(round): the process must die by SIGKILL, not exit")
            kills += 1
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            if names.contains(where: { $0.contains(".tmp-") }) { killsMidWrite += 1 }
            let problems = Self.manifestProblems(in: directory)
            #expect(problems.isEmpty, "after kill \(kills): \(problems)")
            if let data = FileManager.default.contents(atPath: directory + "/manifest.json") {
                sawManifest = true
                manifests.insert(data)
            } else {
                #expect(!sawManifest, "after kill \(kills): a published manifest was lost")
            }
        }
        #expect(kills >= 100)
        #expect(sawManifest)
        #expect(killsMidWrite > 0, "some kills must land in the middle of a file write (temp file left behind)")
        print("kill -9: \(kills) kills, \(killsMidWrite) mid-write, \(manifests.count) distinct manifests seen, every one intact")
    }
}
