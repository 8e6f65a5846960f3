import Converter
import Foundation
import ListSync
import ManifestSigning
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

#if canImport(Glibc)
    import Glibc
#endif

/// Local faults, for real: a public directory that runs out of space mid-publish (a small tmpfs),
/// a read-only state directory (a read-only bind mount), and kill -9 during publishing.
/// Needs root (mount); CI runs as root. Without it the tests fail and say so.
@Suite(.serialized) struct FaultTests {

    /// Checks the invariant every reader relies on: the manifest names only files that exist with
    /// its hash (and a gzip sibling that inflates to the same bytes). Returns the problems found.
    static func manifestProblems(in directory: String) -> [String] {
        let manifestPath = directory + "/manifest.json"
        guard let data = FileManager.default.contents(atPath: manifestPath) else { return [] }
        guard var manifest = try? Manifest.decode(data) else {
            return ["manifest.json does not parse: \(data.count) bytes"]
        }
        DerivedPatchFiles.fill(&manifest, directory: directory)
        var problems: [String] = []
        for entry in manifest.lists {
            guard let bytes = FileManager.default.contents(atPath: directory + "/" + entry.file) else {
                problems.append("\(entry.file) missing")
                continue
            }
            if SHA256Digest.hex(of: bytes) != entry.sha256 { problems.append("\(entry.file) has the wrong hash") }
            guard let gzip = FileManager.default.contents(atPath: directory + "/" + entry.file + ".gz") else {
                problems.append("\(entry.file).gz missing")
                continue
            }
            if (try? Gzip.decompress(Array(gzip), limit: 1 << 26)) != Array(bytes) {
                problems.append("\(entry.file).gz does not match")
            }
            for patch in entry.patches ?? [] {
                guard let patchBytes = FileManager.default.contents(atPath: directory + "/" + patch.file) else {
                    problems.append("patch \(patch.file) missing")
                    continue
                }
                if SHA256Digest.hex(of: patchBytes) != patch.sha256 || patchBytes.count != patch.bytes {
                    problems.append("patch \(patch.file) has the wrong hash or size")
                }
            }
        }
        return problems
    }

    @Test func publicDirectoryRunningOutOfSpaceMidPublishKeepsTheServedSet() throws {
        let scratch = ScratchDirectory("enospc")
        let mountPoint = scratch.sub("public")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mounted = ListServerBinary.shell("mount -t tmpfs -o size=256k tmpfs \(mountPoint)")
        try #require(mounted.status == 0, "this test mounts a 256 KB tmpfs and needs root: \(mounted.output)")
        defer { ListServerBinary.shell("umount \(mountPoint)") }

        var origin = PublishingOrigin(
            Publisher(writer: SetWriter(directory: mountPoint), gracePeriod: 3600, gate: nil, log: LogLines().log))
        let small = [FixtureLists.incompressibleList("a", rules: 20), FixtureLists.incompressibleList("b", rules: 20)]
        let first = try origin.publish(FixtureLists.conversionOutput(small))
        let manifestBefore = try Data(contentsOf: URL(fileURLWithPath: mountPoint + "/manifest.json"))

        // The first new list fits, the second (≈ 2 × 600 KB with its gzip) cannot.
        let big = [FixtureLists.incompressibleList("a", rules: 25), FixtureLists.incompressibleList("b", rules: 3000)]
        #expect {
            try origin.publish(FixtureLists.conversionOutput(big))
        } throws: { error in
            guard case PublishError.write(_, let reason) = error else { return false }
            return reason.contains("No space left on device")
        }
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: mountPoint + "/manifest.json")) == manifestBefore,
            "the manifest is untouched")
        #expect(Self.manifestProblems(in: mountPoint).isEmpty)
        let names = try FileManager.default.contentsOfDirectory(atPath: mountPoint)
        #expect(!names.contains { $0.contains(".tmp-") }, "no temp file is left behind: \(names)")
        for name in first.plan.fileNames { #expect(FileManager.default.fileExists(atPath: mountPoint + "/" + name)) }
        #expect(
            origin.published?.content.manifest?.identity == Array(manifestBefore),
            "the last good set is what gets served")
        #expect(try origin.load().content.manifest?.identity == Array(manifestBefore), "and what a restart serves")

        // Once space is back (smaller lists), publishing works again.
        let next = try origin.publish(
            FixtureLists.conversionOutput([
                FixtureLists.incompressibleList("a", rules: 10), FixtureLists.incompressibleList("b", rules: 10),
            ]))
        #expect(next.manifestChanged)
        #expect(Self.manifestProblems(in: mountPoint).isEmpty)
    }

    @Test func fullDiskDuringARefreshIsReportedInStatus() throws {
        var harness = try RefreshHarness()
        let mountPoint = harness.directory.sub("public")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mounted = ListServerBinary.shell("mount -t tmpfs -o size=2m tmpfs \(mountPoint)")
        try #require(mounted.status == 0, "this test mounts a tmpfs and needs root: \(mounted.output)")
        defer { ListServerBinary.shell("umount \(mountPoint)") }
        harness.server.set("/easylist.txt", .serve(body: try FixtureLists.easylist(lines: 400), etag: "\"a\""))
        #expect(harness.run().result == .published)
        let manifest = try Data(contentsOf: URL(fileURLWithPath: harness.manifestPath))
        // Fill the disk, then offer a new version.
        ListServerBinary.shell("dd if=/dev/zero of=\(mountPoint)/filler bs=64k count=64 2>/dev/null; true")
        harness.server.set("/easylist.txt", .serve(body: try FixtureLists.easylist(lines: 1500), etag: "\"b\""))
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
        var harness = try RefreshHarness()
        harness.server.set("/easylist.txt", .serve(body: try FixtureLists.easylist(lines: 400), etag: "\"a\""))
        #expect(harness.run().result == .published)
        let manifest = try Data(contentsOf: URL(fileURLWithPath: harness.manifestPath))
        let stateDir = harness.pipeline.store.directory
        let mounted = ListServerBinary.shell(
            "mount --bind \(stateDir) \(stateDir) && mount -o remount,ro,bind \(stateDir)")
        try #require(mounted.status == 0, "this test makes a read-only bind mount and needs root: \(mounted.output)")
        defer { ListServerBinary.shell("umount \(stateDir)") }
        harness.server.set("/easylist.txt", .serve(body: try FixtureLists.easylist(lines: 600), etag: "\"b\""))
        let summary = harness.run()
        #expect(summary.published == nil)
        #expect(try Data(contentsOf: URL(fileURLWithPath: harness.manifestPath)) == manifest)
        let upstream = try #require(harness.upstreamStatus)
        #expect(upstream.lastResult == "failed")
        #expect(upstream.lastError?.contains("Read-only file system") == true, "\(upstream.lastError ?? "nil")")
        #expect(harness.logLines.lines.contains { $0.contains("Read-only file system") })
    }

    /// An ABP list of `rules` filters shared by every round, less a few that exist only in
    /// `round`: every round publishes new files, and small patches from the rounds before.
    static func roundInput(_ round: Int, rules: Int) -> [UInt8] {
        var text = "[Adblock Plus 2.0]\n! round \(round)\n"
        let changed = Set((0..<3).map { (round * 7 + $0 * 397) % rules })
        for index in 0..<rules {
            text += changed.contains(index) ? "||ads\(round)-\(index).example^\n" : "||ads-\(index).example^\n"
        }
        for index in 0..<(rules / 4) { text += "/banner/\(index)/*\n" }
        return Array(text.utf8)
    }

    /// Real `listserver convert --out DIR` processes, each publishing a new set over the same
    /// directory (the product's publish path, not a test double), killed with SIGKILL while they
    /// publish. A kill counts as landing mid-publish only when the process was still running, had
    /// begun writing its set (a new file or temp file is in the directory) and its manifest was
    /// not yet in place. After every kill the manifest on disk must name only intact files, and
    /// have a valid signature at its URL (`--signing-key`); and an inotify watch checks the
    /// signature of every manifest at the instant it appears, so a signature written after its
    /// manifest is caught even though no kill lands in that window.
    @Test func killDashNineDuringPublishingNeverLeavesABrokenManifest() throws {
        let run = try KillDuringPublish()
        // Between kills too: every manifest the moment it is renamed into place (inotify).
        let watcher = try SignedManifestWatcher(directory: run.directory, verifier: run.verifier)
        // Bounded: most rounds land mid-publish; the cap only stops a run that cannot get there.
        while run.killsMidPublish < KillDuringPublish.wanted, run.rounds < 8 * KillDuringPublish.wanted {
            let (process, before) = try run.startRound()
            // Every fifth run publishes to the end, so later kills have a newer manifest to keep intact.
            if run.rounds % 5 == 0 {
                run.letFinish(process)
            } else {
                run.kill(process, whilePublishingOver: before)
            }
        }
        watcher.stop()
        let watched = watcher.report
        #expect(
            watched.problems.isEmpty,
            "\(watched.problems.count) of \(watched.checked) manifests seen as they appeared: \(watched.problems.prefix(3))"
        )
        #expect(
            watched.checked >= run.completed,
            "the watcher saw \(watched.checked) manifests, \(run.completed) runs completed one")
        #expect(
            run.killsMidPublish >= KillDuringPublish.wanted,
            "only \(run.killsMidPublish) of \(run.rounds) kills landed mid-publish")
        #expect(run.sawManifest, "no run ever completed a manifest")
        #expect(run.manifests.count > 1, "the kills must happen over more than one published set")
        #expect(run.killsMidWrite > 0, "some kills must land in the middle of a file write (temp file left behind)")
        #expect(run.patchesNamed > 0, "runs over the previous set must publish patches from it")
        print(
            "kill -9: \(run.rounds) rounds, \(run.killsMidPublish) kills mid-publish, \(run.killsMidWrite) mid-write, \(run.manifests.count) distinct manifests seen, every one intact; \(watched.checked) manifests checked as they appeared"
        )
    }

    /// The rounds of `killDashNineDuringPublishingNeverLeavesABrokenManifest`: `listserver convert`
    /// processes publishing signed sets into one directory, and what they left there.
    final class KillDuringPublish {
        static let wanted = 100
        let binary: String
        let scratch = ScratchDirectory("kill9")
        let directory: String
        let key: SigningKeyFile.Written
        let verifier: SignatureVerifier
        var rounds = 0
        var completed = 0
        var killsMidPublish = 0
        var killsMidWrite = 0
        var manifests = Set<Data>()
        var sawManifest = false
        var patchesNamed = 0

        init() throws {
            binary = try ListServerBinary.path()
            directory = scratch.sub("public")
            key = try SigningKeyFile.generate(inDirectory: scratch.sub("key"))
            verifier = try SignatureVerifier(trustedKeys: [key.key.publicKey])
        }

        /// What the directory held before a round: its names and its manifest.
        struct Before {
            var names: Set<String>
            var manifest: Data?
        }

        /// Writes the next round's input and starts publishing it.
        func startRound() throws -> (RunningChild, Before) {
            rounds += 1
            let input = scratch.sub("round.txt")
            try FaultTests.roundInput(rounds, rules: 1_500).write(to: input)
            let before = Before(
                names: Set((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []),
                manifest: FileManager.default.contents(atPath: directory + "/manifest.json"))
            let process = try RunningChild(
                binary,
                [
                    "convert", "--input", input, "--out", directory, "--chunk-size", "150", "--signing-key",
                    key.privateKeyPath,
                ],
                stdout: .null, stderr: .null)
            return (process, before)
        }

        func letFinish(_ process: RunningChild) {
            let status = process.wait()
            completed += 1
            #expect(status == 0, "round \(rounds): convert failed")
            checkTheSetOnDisk()
            guard let data = FileManager.default.contents(atPath: directory + "/manifest.json") else { return }
            sawManifest = true
            manifests.insert(data)
            if var manifest = try? Manifest.decode(data) {
                DerivedPatchFiles.fill(&manifest, directory: directory)
                patchesNamed += manifest.lists.reduce(0) { $0 + ($1.patches?.count ?? 0) }
            }
        }

        /// Waits (bounded) until the run starts writing its set, kills it within the next few
        /// milliseconds, counts where the kill landed and checks what it left.
        func kill(_ process: RunningChild, whilePublishingOver before: Before) {
            var writing = false
            _ = eventually(timeout: 20, interval: 0.0002) {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
                writing = names.contains { !before.names.contains($0) }
                return writing || !process.isRunning
            }
            // Mostly within a few milliseconds; every third round anywhere in the next 40 ms, so kills
            // also land late in the publish (the manifest rename, and anything after it).
            usleep(UInt32.random(in: 0...(rounds % 3 == 0 ? 40_000 : 4_000)))
            let running = process.isRunning
            process.signal(SIGKILL)
            process.wait()
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            let manifestAfter = FileManager.default.contents(atPath: directory + "/manifest.json")
            if running, process.terminatingSignal != nil, writing, manifestAfter == before.manifest {
                killsMidPublish += 1
                if names.contains(where: { $0.contains(".tmp-") }) { killsMidWrite += 1 }
            }
            checkTheSetOnDisk()
            if let manifestAfter {
                sawManifest = true
                manifests.insert(manifestAfter)
            } else {
                #expect(!sawManifest, "after round \(rounds): a published manifest was lost")
            }
            removeTempFiles(names)
        }

        /// The manifest on disk names only intact files and has a valid signature at its URL.
        private func checkTheSetOnDisk() {
            let problems = FaultTests.manifestProblems(in: directory)
            #expect(problems.isEmpty, "after round \(rounds): \(problems)")
            let unsigned = PublishedSignatureCheck.problems(in: directory, verifier: verifier)
            #expect(unsigned.isEmpty, "after round \(rounds): \(unsigned)")
        }

        /// Temp files of killed writers are what a restart removes before publishing again.
        private func removeTempFiles(_ names: [String]) {
            for name in names where name.hasPrefix(".") && name.contains(".tmp-") { unlink(directory + "/" + name) }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory + "/signatures")) ?? []
            where name.contains(".tmp-") {
                unlink(directory + "/signatures/" + name)
            }
        }
    }
}
