import Converter
import Foundation
import ListSync
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginRefresh
@testable import OriginStore

#if canImport(Glibc)
    import Glibc
#endif

/// Content-hashed set writing, unchanged sets, grace-period pruning and the publish gate.
@Suite struct PublishTests {

    static let a1 = #"[{"trigger":{"url-filter":"a1"},"action":{"type":"block"}}]"#
    static let a2 = #"[{"trigger":{"url-filter":"a2"},"action":{"type":"block"}}]"#
    static let b1 = #"[{"trigger":{"url-filter":"b1"},"action":{"type":"block"}}]"#

    @Test func planIsDeterministicAndNamesFilesByHash() throws {
        let first = try PublishPlan.make(from: FixtureLists.conversionOutput([("net-00", Self.a1), ("css", Self.b1)]))
        let second = try PublishPlan.make(from: FixtureLists.conversionOutput([("net-00", Self.a1), ("css", Self.b1)]))
        #expect(first.manifest == second.manifest)
        #expect(first.lists.map(\.gzip) == second.lists.map(\.gzip))
        let hash = SHA256Digest.hex(of: Array(Self.a1.utf8))
        #expect(first.lists[0].fileName == "net-00.\(hash.prefix(12)).json")
        let manifest = try JSONDecoder().decode(Manifest.self, from: Data(first.manifest))
        // Patches go under derived names, so the published entries list none.
        #expect(
            manifest
                == Manifest(
                    format: 1, patchFiles: Manifest.derivedPatchFiles,
                    lists: [
                        Manifest.Entry(
                            id: "net-00", file: first.lists[0].fileName, sha256: hash, rules: 1,
                            bytes: Self.a1.utf8.count),
                        Manifest.Entry(
                            id: "css", file: first.lists[1].fileName, sha256: SHA256Digest.hex(of: Array(Self.b1.utf8)),
                            rules: 1, bytes: Self.b1.utf8.count),
                    ]))
        #expect(try Gzip.decompress(first.lists[0].gzip!, limit: 1 << 20) == Array(Self.a1.utf8))
        #expect(throws: PublishError.invalidListID("../x")) {
            try PublishPlan.make(from: FixtureLists.conversionOutput([("../x", Self.a1)]))
        }
        #expect(throws: PublishError.duplicateListID("x")) {
            try PublishPlan.make(from: FixtureLists.conversionOutput([("x", Self.a1), ("x", Self.b1)]))
        }
    }

    /// Published gzip files checked by tools that share no code with ours: Debian's `gzip -d`
    /// inflates each to its identity file, the header carries no modification time, and two
    /// separate `listserver convert` processes write identical bytes. Within a few percent of plain level 9.
    @Test func publishedGzipInflatesWithGzipAndIsTheSameFromEveryRun() throws {
        let binary = try ListServerBinary.path()
        let scratch = ScratchDirectory("gzip")
        let input = scratch.sub("easylist.txt")
        try FixtureLists.easylist(lines: 3_000).write(to: input)
        var sets: [[String: [UInt8]]] = []
        for run in 0..<2 {
            let out = scratch.sub("out-\(run)")
            let converted = ListServerBinary.shell("\(binary) convert --input \(input) --out \(out)")
            try #require(converted.status == 0, "\(converted.output)")
            var files: [String: [UInt8]] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: out) where name.hasSuffix(".json.gz") {
                files[name] = Array(try Data(contentsOf: URL(fileURLWithPath: out + "/" + name)))
                let inflated = ListServerBinary.shell(
                    "gzip -dc \(out)/\(name) > \(scratch.sub("inflated")) && cmp \(scratch.sub("inflated")) \(out)/\(name.dropLast(3)) && echo same"
                )
                #expect(inflated.output.hasSuffix("same\n"), "gzip -d of \(name): \(inflated.output)")
            }
            sets.append(files)
        }
        #expect(!sets[0].isEmpty)
        #expect(sets[0] == sets[1], "two processes wrote different gzip bytes")
        for (name, gzip) in sets[0] {
            #expect(Array(gzip[4..<8]) == [0, 0, 0, 0], "\(name): no modification time in the gzip header")
            let identity = try Gzip.decompress(gzip, limit: 1 << 26)
            let best = ListServerBinary.shell("gzip -9 -n -c \(scratch.sub("out-0"))/\(name.dropLast(3)) | wc -c")
            let bestBytes = try #require(
                Int(best.output.trimmingCharacters(in: .whitespacesAndNewlines)), "\(best.output)")
            #expect(
                Double(gzip.count) <= Double(bestBytes) * 1.05,
                "\(name): \(gzip.count) bytes, gzip -9 \(bestBytes) (\(identity.count) inflated)")
        }
    }

    /// The manifest's exact bytes (fixed key order, no whitespace, trailing newline), and a reader
    /// that ignores fields it does not know, so that fields can be added without breaking old clients.
    @Test func manifestWritesTheFormatExactlyAndReadsPastUnknownFields() throws {
        let manifest = Manifest(lists: [
            Manifest.Entry(
                id: "net-00", file: "net-00.0123456789ab.json", sha256: String(repeating: "a", count: 64), rules: 7),
            Manifest.Entry(
                id: "css", file: "css.ba9876543210.json", sha256: String(repeating: "b", count: 64), rules: 0),
        ])
        let expected =
            #"{"format":1,"lists":[{"id":"net-00","file":"net-00.0123456789ab.json","sha256":"\#(String(repeating: "a", count: 64))","rules":7},"#
            + #"{"id":"css","file":"css.ba9876543210.json","sha256":"\#(String(repeating: "b", count: 64))","rules":0}]}"#
            + "\n"
        #expect(String(decoding: manifest.encoded(), as: UTF8.self) == expected)
        #expect(try Manifest.decode(Data(manifest.encoded())) == manifest)
        let extended =
            #"{"format":1,"generation":9,"lists":[{"id":"css","file":"css.ba9876543210.json","sha256":"\#(String(repeating: "b", count: 64))","#
            + #""later":{"x":1},"rules":0}],"expires":"2026-01-01T00:00:00Z"}"#
        #expect(try Manifest.decode(Data(extended.utf8)).lists == [manifest.lists[1]])
        // The patch fields come after `rules`, in this order; a patch entry reads past unknown fields too.
        let patch = Manifest.Patch(
            from: String(repeating: "c", count: 64), file: "css.cccccccccccc-ba9876543210.dcz",
            sha256: String(repeating: "d", count: 64), bytes: 41)
        let withPatch = Manifest(lists: [
            Manifest.Entry(
                id: "css", file: "css.ba9876543210.json", sha256: String(repeating: "b", count: 64), rules: 0,
                bytes: 12, patches: [patch])
        ])
        let patchJSON = #"{"from":"\#(patch.from)","file":"\#(patch.file)","sha256":"\#(patch.sha256)","bytes":41}"#
        #expect(
            String(decoding: withPatch.encoded(), as: UTF8.self)
                == #"{"format":1,"lists":[{"id":"css","file":"css.ba9876543210.json","sha256":"\#(String(repeating: "b", count: 64))","rules":0,"bytes":12,"patches":[\#(patchJSON)]}]}"#
                + "\n")
        let patchExtended = String(decoding: withPatch.encoded(), as: UTF8.self).replacingOccurrences(
            of: #""bytes":41}"#, with: #""bytes":41,"later":true}"#)
        #expect(try Manifest.decode(Data(patchExtended.utf8)) == withPatch)
        #expect(
            Manifest(lists: [Manifest.Entry(id: "q\"\\", file: "f", sha256: "s", rules: 1)]).encoded()
                == Array(#"{"format":1,"lists":[{"id":"q\"\\","file":"f","sha256":"s","rules":1}]}"#.utf8) + [0x0A],
            "strings are escaped")
    }

    @Test func gzipIsReusedForFilesThePreviousSetHolds() throws {
        let known = Array("not really gzip".utf8)
        let plan = try PublishPlan.make(from: FixtureLists.conversionOutput([("net-00", Self.a1), ("css", Self.b1)])) {
            $0.hasPrefix("css.") ? known : nil
        }
        #expect(try Gzip.decompress(plan.lists[0].gzip!, limit: 1 << 20) == Array(Self.a1.utf8))
        #expect(plan.lists[1].gzip == known, "taken as it is, not compressed again")
    }

    @Test func writesFilesThenManifestAndRewritesNothingWhenUnchanged() throws {
        let dir = ScratchDirectory()
        let writer = SetWriter(directory: dir.path)
        let plan = try PublishPlan.make(from: FixtureLists.conversionOutput([("net-00", Self.a1)]))
        let first = try writer.write(plan)
        #expect(first.manifestChanged)
        #expect(first.createdFiles == [plan.lists[0].fileName, plan.lists[0].gzipName])
        let manifestPath = writer.path(PublishPlan.manifestName)
        let before = try FileManager.default.attributesOfItem(atPath: manifestPath)
        let previous = try PublishedSetLoader(writer: writer, gracePeriod: 0).load(history: [])
        let again = try PublishPlan.make(from: FixtureLists.conversionOutput([("net-00", Self.a1)])) {
            previous.content.files[String($0.dropLast(3))]?.gzip
        }
        let second = try writer.write(again, over: previous)
        #expect(!second.manifestChanged)
        #expect(second.createdFiles.isEmpty)
        let after = try FileManager.default.attributesOfItem(atPath: manifestPath)
        #expect(before[.systemFileNumber] as? Int == after[.systemFileNumber] as? Int, "the manifest was not replaced")
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: manifestPath))) == plan.manifest)
        #expect(FileManager.default.fileExists(atPath: writer.path(PublishPlan.layoutName)))
        #expect(FileManager.default.fileExists(atPath: writer.path(PublishPlan.reportName)))
    }

    @Test func provenanceIsWrittenBesideTheSetKeyedToItsListsAndNeverServed() throws {
        let dir = ScratchDirectory()
        let abp = "||ads.example^\n##.banner\n||csp.example^$csp=script-src 'none'\n"
        let output = try ListConverter().convert([FilterListSource(id: "small", bytes: Array(abp.utf8))])
        var origin = PublishingOrigin(PublishingOrigin.publisher(dir.path))
        let outcome = try origin.publish(output)
        let written = try #require(FileManager.default.contents(atPath: dir.path + "/" + ProvenanceFile.fileName))
        #expect(
            Array(written) == ProvenanceFile.encode(output.provenance, listSHA256: outcome.plan.lists.map(\.sha256)))
        let reader = try ProvenanceReader(bytes: Array(written))
        #expect(outcome.plan.lists.map { reader.sha256(ofList: $0.id) } == outcome.plan.lists.map(\.sha256))
        #expect(
            reader.lines(list: "network-hosts-00", rule: 0) == [
                SourceLine(upstream: "small", line: 1, text: "||ads.example^")
            ])
        #expect(reader.skipped(naming: ["csp.example"]).map(\.reason) == ["option-csp"])
        // Devices and the CDN get only what the manifest names.
        #expect(outcome.published.content.files[ProvenanceFile.fileName] == nil)
        #expect(try origin.load().content.files[ProvenanceFile.fileName] == nil)
    }

    @Test func damagedFileUnderAPlannedNameIsRewritten() throws {
        let dir = ScratchDirectory()
        let writer = SetWriter(directory: dir.path)
        let plan = try PublishPlan.make(from: FixtureLists.conversionOutput([("net-00", Self.a1)]))
        try Array("garbage".utf8).write(to: writer.path(plan.lists[0].fileName))
        _ = try writer.write(plan)
        #expect(
            Array(try Data(contentsOf: URL(fileURLWithPath: writer.path(plan.lists[0].fileName))))
                == Array(Self.a1.utf8))
    }

    @Test func oldFilesStayForTheGracePeriodAndAreServedThenRemoved() throws {
        let dir = ScratchDirectory()
        var origin = PublishingOrigin(PublishingOrigin.publisher(dir.path, grace: 3600))
        let t0 = Date()
        let first = try origin.publish(FixtureLists.conversionOutput([("net-00", Self.a1), ("css", Self.b1)]), now: t0)
        let second = try origin.publish(
            FixtureLists.conversionOutput([("net-00", Self.a2), ("css", Self.b1)]), now: t0.addingTimeInterval(10))
        #expect(origin.history.count == 2)
        #expect(origin.history[0].supersededAt == t0.addingTimeInterval(10))
        let oldName = first.plan.lists[0].fileName
        #expect(origin.publisher.writer.exists(oldName), "kept inside the grace period")
        // What is served from memory after the publish is what a restart reads back from disk.
        let loaded = try origin.load(now: t0.addingTimeInterval(20))
        for set in [second.published, loaded] {
            #expect(set.manifest.lists.map(\.file) == second.plan.lists.map(\.fileName))
            #expect(set.content.files[oldName] != nil, "grace-period files are served")
            #expect(set.content.files[oldName]?.gzip != nil)
            #expect(set.content.files[second.plan.lists[0].fileName]?.lastModified == t0.addingTimeInterval(10))
            #expect(
                set.content.files[second.plan.lists[1].fileName]?.lastModified == t0,
                "Last-Modified is the first publish time")
        }
        #expect(second.published.content.files == loaded.content.files)
        #expect(second.published.content.manifest == loaded.content.manifest)
        // Publishing the same set after the grace period removes only what no current manifest names.
        let third = try origin.publish(
            FixtureLists.conversionOutput([("net-00", Self.a2), ("css", Self.b1)]), now: t0.addingTimeInterval(4000))
        #expect(!third.manifestChanged)
        #expect(third.removedFiles == [oldName, oldName + ".gz"].sorted())
        #expect(third.published.content.files[oldName] == nil, "and stops serving them")
        for name in third.plan.fileNames { #expect(origin.publisher.writer.exists(name)) }
        #expect(origin.history.count == 1)
    }

    @Test func filesOfAManifestMissingFromHistoryStillGetTheirGracePeriod() throws {
        let dir = ScratchDirectory()
        var lost = PublishingOrigin(PublishingOrigin.publisher(dir.path, grace: 3600))
        let first = try lost.publish(FixtureLists.conversionOutput([("net-00", Self.a1)]))
        // Ten days later, with the history gone (state lost), a new set replaces the one on disk.
        var origin = PublishingOrigin(lost.publisher)
        origin.published = try origin.load()
        let later = Date().addingTimeInterval(10 * 86_400)
        _ = try origin.publish(FixtureLists.conversionOutput([("net-00", Self.a2)]), now: later)
        #expect(
            origin.publisher.writer.exists(first.plan.lists[0].fileName), "superseded just now: inside the grace period"
        )
        #expect(
            origin.publisher.retention.prune(keeping: [], history: &origin.history, now: later.addingTimeInterval(60))
                .isEmpty)
        let removed = origin.publisher.retention.prune(
            keeping: Set(origin.history.last!.files), history: &origin.history, now: later.addingTimeInterval(3700))
        #expect(removed.contains(first.plan.lists[0].fileName))
    }

    @Test func orphanFilesFromAFailedPublishAreRemovedOnlyAfterTheGracePeriod() throws {
        let dir = ScratchDirectory()
        var origin = PublishingOrigin(PublishingOrigin.publisher(dir.path, grace: 3600))
        _ = try origin.publish(FixtureLists.conversionOutput([("net-00", Self.a1)]))
        let writer = origin.publisher.writer
        try Array(Self.b1.utf8).write(to: writer.path("orphan.0123456789ab.json"))
        try Array("keep me".utf8).write(to: writer.path("notes.txt"))
        #expect(origin.publisher.retention.prune(keeping: [], history: &origin.history, now: Date()).isEmpty)
        let later = origin.publisher.retention.prune(
            keeping: Set(origin.history.last!.files), history: &origin.history, now: Date().addingTimeInterval(7200))
        #expect(later == ["orphan.0123456789ab.json"])
        #expect(writer.exists("notes.txt"))
    }

    struct RejectingGate: PublishGate {
        var rejectedRule: String
        func rejection(of list: RuleList) -> String? {
            String(decoding: list.json, as: UTF8.self).contains(rejectedRule)
                ? "Invalid or unsupported regular expression." : nil
        }
    }

    /// Counts what the gate is asked to compile.
    final class CountingGate: PublishGate, @unchecked Sendable {
        private let lock = NSLock()
        private var compiled: [String] = []
        var ids: [String] { lock.withLock { compiled } }
        func rejection(of list: RuleList) -> String? {
            lock.withLock { compiled.append(list.id) }
            return nil
        }
    }

    @Test func aGateRejectionPublishesNothing() throws {
        let dir = ScratchDirectory()
        var origin = PublishingOrigin(PublishingOrigin.publisher(dir.path, gate: RejectingGate(rejectedRule: "a2")))
        let first = try origin.publish(FixtureLists.conversionOutput([("net-00", Self.a1), ("css", Self.b1)]))
        let b2 = #"[{"trigger":{"url-filter":"b2"},"action":{"type":"block"}}]"#
        // A list kept from an older layout would miss the rules the layout moved into it: the whole set waits.
        #expect(
            throws: PublishError.gateRejected([
                Publisher.GateRejection(id: "net-00", reason: "Invalid or unsupported regular expression.")
            ])
        ) {
            try origin.publish(FixtureLists.conversionOutput([("net-00", Self.a2), ("css", b2)]))
        }
        let manifest = try origin.load().manifest
        #expect(manifest.lists.map(\.file) == first.plan.lists.map(\.fileName), "the previous set stays, css included")
    }

    @Test func gateCompilesOnlyListsThePreviousSetDoesNotHold() throws {
        let dir = ScratchDirectory()
        let gate = CountingGate()
        var origin = PublishingOrigin(PublishingOrigin.publisher(dir.path, gate: gate))
        _ = try origin.publish(FixtureLists.conversionOutput([("net-00", Self.a1), ("css", Self.b1)]))
        #expect(gate.ids.sorted() == ["css", "net-00"])
        _ = try origin.publish(FixtureLists.conversionOutput([("net-00", Self.a2), ("css", Self.b1)]))
        #expect(
            gate.ids.sorted() == ["css", "net-00", "net-00"], "css is unchanged and was gated when first published")
        // Back to a1, which the grace period still serves: already gated.
        _ = try origin.publish(FixtureLists.conversionOutput([("net-00", Self.a1), ("css", Self.b1)]))
        #expect(gate.ids.count == 3)
    }

    @Test func realWebKitGateRejectionPublishesNothing() throws {
        let gate = DeferredWebKitGate(helper: try WebKitTestSupport.helper(), required: true, log: LogLines().log)
        let dir = ScratchDirectory()
        var origin = PublishingOrigin(PublishingOrigin.publisher(dir.path, gate: gate))
        _ = try origin.publish(FixtureLists.conversionOutput([("net-00", Self.a1), ("css", Self.b1)]))
        // Alternation is outside WebKit's regex subset: WebKit refuses the whole list.
        let invalid = #"[{"trigger":{"url-filter":"ads|track"},"action":{"type":"block"}}]"#
        do {
            _ = try origin.publish(FixtureLists.conversionOutput([("net-00", invalid), ("css", Self.a2)]))
            Issue.record("a list WebKit rejects was published")
        } catch PublishError.gateRejected(let rejections) {
            #expect(rejections.map(\.id) == ["net-00"])
            #expect(
                rejections.first?.reason.contains("Invalid or unsupported regular expression") == true, "\(rejections)")
        }
        let manifest = try origin.load().manifest
        #expect(
            manifest.lists.map(\.sha256) == [
                SHA256Digest.hex(of: Array(Self.a1.utf8)), SHA256Digest.hex(of: Array(Self.b1.utf8)),
            ])
    }

    @Test func loaderRefusesAManifestNamingAMissingOrDamagedFile() throws {
        let dir = ScratchDirectory()
        var origin = PublishingOrigin(PublishingOrigin.publisher(dir.path))
        let outcome = try origin.publish(FixtureLists.conversionOutput([("net-00", Self.a1)]))
        let path = origin.publisher.writer.path(outcome.plan.lists[0].fileName)
        try Array("x".utf8).write(to: path)
        #expect(throws: PublishedSetLoader.LoadError.hashMismatch(path)) { try origin.load() }
        unlink(path)
        #expect(throws: PublishedSetLoader.LoadError.missingFile(path)) { try origin.load() }
        let empty = ScratchDirectory()
        #expect(throws: PublishedSetLoader.LoadError.noManifest(empty.path)) {
            try PublishingOrigin(PublishingOrigin.publisher(empty.path)).load()
        }
    }

    /// A list file removed behind the publisher's back is written again, not assumed present.
    @Test func aKnownFileMissingFromDiskIsWrittenAgain() throws {
        let dir = ScratchDirectory()
        var origin = PublishingOrigin(PublishingOrigin.publisher(dir.path))
        let first = try origin.publish(FixtureLists.conversionOutput([("net-00", Self.a1)]))
        unlink(origin.publisher.writer.path(first.plan.lists[0].fileName))
        let again = try origin.publish(FixtureLists.conversionOutput([("net-00", Self.a1)]))
        #expect(again.createdFiles == [first.plan.lists[0].fileName])
        #expect(try origin.load().manifest.lists.count == 1)
    }
}
