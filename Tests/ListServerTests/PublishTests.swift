import Converter
import Foundation
import ListSync
import Testing
@testable import ListServer

/// Content-hashed set writing, unchanged sets, grace-period pruning and the publish gate.
@Suite struct PublishTests {
    static func output(_ lists: [(String, String)]) -> ConversionOutput {
        let rules = lists.map { RuleList(id: $0.0, json: Array($0.1.utf8), ruleCount: 1) }
        return ConversionOutput(lists: rules, report: ConversionReport(sources: [], lists: []), layoutState: Array("{}".utf8))
    }

    static let a1 = #"[{"trigger":{"url-filter":"a1"},"action":{"type":"block"}}]"#
    static let a2 = #"[{"trigger":{"url-filter":"a2"},"action":{"type":"block"}}]"#
    static let b1 = #"[{"trigger":{"url-filter":"b1"},"action":{"type":"block"}}]"#

    func publisher(_ directory: String, grace: Double = 3600, gate: (any PublishGate)? = nil) -> Publisher {
        Publisher(writer: SetWriter(directory: directory), gracePeriod: grace, gate: gate, log: LogLines().log)
    }

    @Test func planIsDeterministicAndNamesFilesByHash() throws {
        let first = try PublishPlan.make(from: Self.output([("net-00", Self.a1), ("css", Self.b1)]))
        let second = try PublishPlan.make(from: Self.output([("net-00", Self.a1), ("css", Self.b1)]))
        #expect(first.manifest == second.manifest)
        #expect(first.lists.map(\.gzip) == second.lists.map(\.gzip))
        let hash = SHA256.hex(Array(Self.a1.utf8))
        #expect(first.lists[0].fileName == "net-00.\(hash.prefix(12)).json")
        let manifest = try JSONDecoder().decode(Manifest.self, from: Data(first.manifest))
        #expect(manifest == Manifest(format: 1, lists: [
            Manifest.Entry(id: "net-00", file: first.lists[0].fileName, sha256: hash, rules: 1),
            Manifest.Entry(id: "css", file: first.lists[1].fileName, sha256: SHA256.hex(Array(Self.b1.utf8)), rules: 1),
        ]))
        #expect(try Gzip.decompress(first.lists[0].gzip!, limit: 1 << 20) == Array(Self.a1.utf8))
        #expect(throws: PublishError.invalidListID("../x")) { try PublishPlan.make(from: Self.output([("../x", Self.a1)])) }
        #expect(throws: PublishError.duplicateListID("x")) { try PublishPlan.make(from: Self.output([("x", Self.a1), ("x", Self.b1)])) }
    }

    /// Published lists use level 9 with short hash chains: still gzip that inflates to the list,
    /// the same bytes on every run, header without a timestamp, and within a few percent of plain level 9.
    @Test func publishedGzipEffortRoundTripsDeterministically() throws {
        let list = Array((0..<3_000).map { #"{"trigger":{"url-filter":"^[^:]+://+([^:/]+\\.)?host\#($0 % 977)\\.example[:/]"},"action":{"type":"block"}}"# }
            .joined(separator: ",\n").utf8)
        let published = try Gzip.compress(list)
        #expect(published == (try Gzip.compress(list, effort: .published)))
        #expect(published == (try Gzip.compress(list)), "deterministic")
        #expect(Array(published[4..<8]) == [0, 0, 0, 0], "no modification time in the gzip header")
        #expect(try Gzip.decompress(published, limit: 1 << 24) == list)
        let best = try Gzip.compress(list, effort: .best)
        #expect(try Gzip.decompress(best, limit: 1 << 24) == list)
        #expect(Double(published.count) <= Double(best.count) * 1.05, "published \(published.count) bytes, level 9 \(best.count)")
    }

    @Test func gzipIsSkippedForFilesAlreadyPresent() throws {
        let plan = try PublishPlan.make(from: Self.output([("net-00", Self.a1), ("css", Self.b1)])) { $0.hasPrefix("css.") }
        #expect(plan.lists[0].gzip != nil)
        #expect(plan.lists[1].gzip == nil)
    }

    @Test func writesFilesThenManifestAndRewritesNothingWhenUnchanged() throws {
        let dir = ScratchDirectory()
        let writer = SetWriter(directory: dir.path)
        let plan = try PublishPlan.make(from: Self.output([("net-00", Self.a1)]), gzipExists: writer.exists)
        let first = try writer.write(plan)
        #expect(first.manifestChanged)
        #expect(first.createdFiles == [plan.lists[0].fileName, plan.lists[0].gzipName])
        let manifestPath = writer.path(PublishPlan.manifestName)
        let before = try FileManager.default.attributesOfItem(atPath: manifestPath)
        let again = try PublishPlan.make(from: Self.output([("net-00", Self.a1)]), gzipExists: writer.exists)
        #expect(again.lists[0].gzip == nil, "an existing gzip file is reused, not recompressed")
        let second = try writer.write(again)
        #expect(!second.manifestChanged)
        #expect(second.createdFiles.isEmpty)
        let after = try FileManager.default.attributesOfItem(atPath: manifestPath)
        #expect(before[.systemFileNumber] as? Int == after[.systemFileNumber] as? Int, "the manifest was not replaced")
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: manifestPath))) == plan.manifest)
        #expect(FileManager.default.fileExists(atPath: writer.path(PublishPlan.layoutName)))
        #expect(FileManager.default.fileExists(atPath: writer.path(PublishPlan.reportName)))
    }

    @Test func damagedFileUnderAPlannedNameIsRewritten() throws {
        let dir = ScratchDirectory()
        let writer = SetWriter(directory: dir.path)
        let plan = try PublishPlan.make(from: Self.output([("net-00", Self.a1)]))
        try Array("garbage".utf8).write(to: writer.path(plan.lists[0].fileName))
        _ = try writer.write(plan)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: writer.path(plan.lists[0].fileName)))) == Array(Self.a1.utf8))
    }

    @Test func oldFilesStayForTheGracePeriodAndAreServedThenRemoved() throws {
        let dir = ScratchDirectory()
        let publisher = publisher(dir.path, grace: 3600)
        var history: [PersistentState.PublishRecord] = []
        let t0 = Date()
        let first = try publisher.publish(Self.output([("net-00", Self.a1), ("css", Self.b1)]), history: &history, now: t0)
        let second = try publisher.publish(Self.output([("net-00", Self.a2), ("css", Self.b1)]), history: &history, now: t0.addingTimeInterval(10))
        #expect(history.count == 2)
        #expect(history[0].supersededAt == t0.addingTimeInterval(10))
        let oldName = first.plan.lists[0].fileName
        #expect(publisher.writer.exists(oldName), "kept inside the grace period")
        let (content, manifest) = try SiteContentLoader(publisher: publisher).load(history: history, now: t0.addingTimeInterval(20))
        #expect(manifest.lists.map(\.file) == second.plan.lists.map(\.fileName))
        #expect(content.files[oldName] != nil, "grace-period files are served")
        #expect(content.files[oldName]?.gzip != nil)
        #expect(content.files[second.plan.lists[0].fileName]?.lastModified == t0.addingTimeInterval(10))
        #expect(content.files[second.plan.lists[1].fileName]?.lastModified == t0, "Last-Modified is the first publish time")
        // Publishing the same set after the grace period removes only what no current manifest names.
        let third = try publisher.publish(Self.output([("net-00", Self.a2), ("css", Self.b1)]), history: &history, now: t0.addingTimeInterval(4000))
        #expect(!third.manifestChanged)
        #expect(third.removedFiles == [oldName, oldName + ".gz"].sorted())
        for name in third.plan.fileNames { #expect(publisher.writer.exists(name)) }
        #expect(history.count == 1)
    }

    @Test func filesOfAManifestMissingFromHistoryStillGetTheirGracePeriod() throws {
        let dir = ScratchDirectory()
        let publisher = publisher(dir.path, grace: 3600)
        var lost: [PersistentState.PublishRecord] = []
        let first = try publisher.publish(Self.output([("net-00", Self.a1)]), history: &lost)
        // Ten days later, with the history gone (state lost), a new set replaces it.
        var history: [PersistentState.PublishRecord] = []
        let later = Date().addingTimeInterval(10 * 86_400)
        _ = try publisher.publish(Self.output([("net-00", Self.a2)]), history: &history, now: later)
        #expect(publisher.writer.exists(first.plan.lists[0].fileName), "superseded just now: inside the grace period")
        #expect(publisher.prune(keeping: [], history: &history, now: later.addingTimeInterval(60)).isEmpty)
        let removed = publisher.prune(keeping: Set(history.last!.files), history: &history, now: later.addingTimeInterval(3700))
        #expect(removed.contains(first.plan.lists[0].fileName))
    }

    @Test func orphanFilesFromAFailedPublishAreRemovedOnlyAfterTheGracePeriod() throws {
        let dir = ScratchDirectory()
        let publisher = publisher(dir.path, grace: 3600)
        var history: [PersistentState.PublishRecord] = []
        _ = try publisher.publish(Self.output([("net-00", Self.a1)]), history: &history)
        try Array(Self.b1.utf8).write(to: publisher.writer.path("orphan.0123456789ab.json"))
        try Array("keep me".utf8).write(to: publisher.writer.path("notes.txt"))
        #expect(publisher.prune(keeping: [], history: &history, now: Date()).isEmpty)
        let later = publisher.prune(keeping: Set(history.last!.files), history: &history, now: Date().addingTimeInterval(7200))
        #expect(later == ["orphan.0123456789ab.json"])
        #expect(publisher.writer.exists("notes.txt"))
    }

    struct RejectingGate: PublishGate {
        var rejectedRule: String
        func rejection(of list: RuleList) -> String? {
            String(decoding: list.json, as: UTF8.self).contains(rejectedRule) ? "Invalid or unsupported regular expression." : nil
        }
    }

    @Test func gateKeepsThePreviousVersionOfARejectedList() throws {
        let dir = ScratchDirectory()
        let publisher = publisher(dir.path, gate: RejectingGate(rejectedRule: "a2"))
        var history: [PersistentState.PublishRecord] = []
        let first = try publisher.publish(Self.output([("net-00", Self.a1), ("css", Self.b1)]), history: &history)
        let b2 = #"[{"trigger":{"url-filter":"b2"},"action":{"type":"block"}}]"#
        let second = try publisher.publish(Self.output([("net-00", Self.a2), ("css", b2)]), history: &history)
        #expect(second.rejections == [Publisher.GateRejection(id: "net-00", reason: "Invalid or unsupported regular expression.", keptPrevious: true)])
        #expect(second.plan.lists[0].fileName == first.plan.lists[0].fileName, "the previous net-00 stays")
        #expect(second.plan.lists[1].identity == Array(b2.utf8), "the other list is updated")
        let manifest = try #require(publisher.currentManifest())
        #expect(manifest.lists[0].sha256 == SHA256.hex(Array(Self.a1.utf8)))
        // A rejected list with no previous version is left out; all rejected is an error.
        let fresh = ScratchDirectory()
        var freshHistory: [PersistentState.PublishRecord] = []
        #expect(throws: PublishError.gateRejectedAll(["net-00"])) {
            try self.publisher(fresh.path, gate: RejectingGate(rejectedRule: "a2")).publish(Self.output([("net-00", Self.a2)]), history: &freshHistory)
        }
        #expect(!FileManager.default.fileExists(atPath: fresh.sub(PublishPlan.manifestName)))
    }

    @Test func realWebKitGateKeepsThePreviousVersionOfAListItRejects() throws {
        let location = try #require(WebKitToolLocation.find(), "the WebKit helper (scripts/webkit/compile.py and python3-gi with WebKit2 4.1) is needed")
        let gate = DeferredWebKitGate(location: location, required: true, log: LogLines().log)
        let dir = ScratchDirectory()
        let publisher = publisher(dir.path, gate: gate)
        var history: [PersistentState.PublishRecord] = []
        let first = try publisher.publish(Self.output([("net-00", Self.a1), ("css", Self.b1)]), history: &history)
        #expect(first.rejections.isEmpty)
        // Alternation is outside WebKit's regex subset: WebKit refuses the whole list.
        let invalid = #"[{"trigger":{"url-filter":"ads|track"},"action":{"type":"block"}}]"#
        let second = try publisher.publish(Self.output([("net-00", invalid), ("css", Self.a2)]), history: &history)
        let rejection = try #require(second.rejections.first)
        #expect(second.rejections.count == 1)
        #expect(rejection.id == "net-00" && rejection.keptPrevious)
        #expect(rejection.reason.contains("Invalid or unsupported regular expression"), "\(rejection.reason)")
        let manifest = try #require(publisher.currentManifest())
        #expect(manifest.lists.map(\.sha256) == [SHA256.hex(Array(Self.a1.utf8)), SHA256.hex(Array(Self.a2.utf8))])
    }

    @Test func loaderRefusesAManifestNamingAMissingOrDamagedFile() throws {
        let dir = ScratchDirectory()
        let publisher = publisher(dir.path)
        var history: [PersistentState.PublishRecord] = []
        let outcome = try publisher.publish(Self.output([("net-00", Self.a1)]), history: &history)
        try Array("x".utf8).write(to: publisher.writer.path(outcome.plan.lists[0].fileName))
        #expect(throws: SiteContentLoader.LoadError.hashMismatch(publisher.writer.path(outcome.plan.lists[0].fileName))) {
            try SiteContentLoader(publisher: publisher).load(history: history)
        }
        let empty = ScratchDirectory()
        #expect(throws: SiteContentLoader.LoadError.noManifest(empty.path)) {
            try SiteContentLoader(publisher: self.publisher(empty.path)).load(history: [])
        }
    }
}

extension Array where Element == UInt8 {
    func write(to path: String) throws { try Data(self).write(to: URL(fileURLWithPath: path)) }
}

/// A fresh directory under /tmp for one test, removed when the value is dropped.
final class ScratchDirectory: @unchecked Sendable {
    let path: String

    init(_ label: String = "publish") {
        path = NSTemporaryDirectory() + "listserver-\(label)-\(getpid())-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func sub(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
