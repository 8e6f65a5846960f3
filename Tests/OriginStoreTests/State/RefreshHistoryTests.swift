import Foundation
import ListSync
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginRefresh
@testable import OriginStore

/// `refresh-history.json`: bounded, survives restarts, tolerates a torn or corrupt file, refuses a
/// newer version without destroying it; and what one refresh record says a device pays.
@Suite struct RefreshHistoryTests {
    static func record(_ index: Int, result: String = "published") -> RefreshRecord {
        RefreshRecord(
            at: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 86400), result: result,
            summary: "refresh \(index)")
    }

    @Test func keepsTheNewestRecordsUpToTheLimitAcrossRestarts() throws {
        let scratch = ScratchDirectory("history-bound")
        let store = RefreshHistoryStore(directory: scratch.path, limit: 5)
        let logs = LogLines()
        let history = RefreshHistory(store: store, log: logs.log)
        for index in 0..<8 { try history.append(Self.record(index)) }
        #expect(history.current.map(\.summary) == (3..<8).map { "refresh \($0)" }, "the oldest are dropped")

        // A restart reads exactly what was kept, and appends after it.
        let restarted = RefreshHistory(store: store, log: logs.log)
        #expect(restarted.current == history.current)
        try restarted.append(Self.record(8))
        #expect(RefreshHistory(store: store, log: logs.log).current.map(\.summary) == (4..<9).map { "refresh \($0)" })
        #expect(logs.lines.isEmpty, "a healthy history logs nothing: \(logs.lines)")
    }

    @Test func aMissingFileIsAnEmptyHistory() throws {
        let scratch = ScratchDirectory("history-missing")
        let store = RefreshHistoryStore(directory: scratch.sub("state-not-created-yet"))
        #expect(try store.load().get().isEmpty)
        let history = RefreshHistory(store: store, log: LogLines().log)
        try history.append(Self.record(1))
        #expect(try store.load().get() == [Self.record(1)], "the directory is created on first write")
    }

    @Test(arguments: ["torn", "garbage", "badRecords", "versionZero"])
    func aTornOrCorruptFileStartsEmptyWithAWarningAndIsKeptAside(_ damage: String) throws {
        let scratch = ScratchDirectory("history-corrupt")
        let store = RefreshHistoryStore(directory: scratch.path)
        let history = RefreshHistory(store: store, log: LogLines().log)
        for index in 0..<3 { try history.append(Self.record(index)) }
        let good = try #require(FileManager.default.contents(atPath: store.path))
        let damaged: [UInt8] =
            switch damage {
            case "torn": Array(good.prefix(good.count / 2))
            case "garbage": Array("\u{0}\u{1}not json at all".utf8)
            case "badRecords": Array(#"{"version":1,"records":[{"at":"yesterday"}]}"#.utf8)
            default: Array(#"{"version":0,"records":[]}"#.utf8)
            }
        try damaged.write(to: store.path)

        let logs = LogLines()
        let reloaded = RefreshHistory(store: store, log: logs.log)
        #expect(reloaded.current.isEmpty)
        let warning = try #require(logs.lines.first)
        #expect(
            warning.contains("warning") && warning.contains("is not a refresh history")
                && warning.contains("moved aside"), "\(warning)")
        let aside = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter {
            $0.hasPrefix(RefreshHistoryStore.fileName + ".corrupt-")
        }
        #expect(aside.count == 1, "the damaged file is kept for inspection")
        #expect(FileManager.default.contents(atPath: scratch.sub(aside.first ?? "")).map(Array.init) == damaged)
        try reloaded.append(Self.record(9))
        #expect(try store.load().get() == [Self.record(9)], "the history goes on from empty")
    }

    @Test func aNewerVersionIsRefusedWithAClearMessageAndNeverOverwritten() throws {
        let scratch = ScratchDirectory("history-newer")
        let store = RefreshHistoryStore(directory: scratch.path)
        let newer = Array(#"{"version":7,"records":[{"something":"from the future"}]}"#.utf8)
        try newer.write(to: store.path)
        guard case .failure(let problem) = store.load() else {
            Issue.record("a version 7 file must not load")
            return
        }
        #expect(problem == .newerVersion(path: store.path, found: 7, supported: RefreshHistoryStore.currentVersion))
        let logs = LogLines()
        let history = RefreshHistory(store: store, log: logs.log)
        #expect(logs.lines.count == 1)
        #expect(
            logs.lines.first?.contains("error") == true && logs.lines.first?.contains("history version 7") == true,
            "\(logs.lines)")
        try history.append(Self.record(1))
        #expect(history.current.isEmpty)
        #expect(
            FileManager.default.contents(atPath: store.path).map(Array.init) == newer,
            "an older server leaves a newer history alone")
    }

    @Test func familiesComeFromListIDs() {
        #expect(RefreshRecord.family(ofList: "network-hosts-03") == "network-hosts")
        #expect(RefreshRecord.family(ofList: "cosmetic-generic-recent") == "cosmetic-generic")
        #expect(RefreshRecord.family(ofList: "network-paths-00") == "network-paths")
        #expect(RefreshRecord.family(ofList: "custom") == "custom")
        #expect(RefreshRecord.family(ofList: "my-list-v2") == "my-list-v2")
    }

    /// A publish where one list changed with a patch from the held version, one changed with no
    /// patch, one stayed, and one is new.
    @Test func aPublishRecordsWhatTheUpdateCostsADevice() throws {
        func planned(_ id: String, _ tag: String, rules: Int, gzip: Int, patches: [PlannedPatch] = []) -> PlannedList {
            let identity = Array("[\(tag)]".utf8)
            let sha = SHA256Digest.hex(of: identity)
            return PlannedList(
                id: id, rules: rules, sha256: sha, fileName: "\(id).\(sha.prefix(12)).json", identity: identity,
                gzip: [UInt8](repeating: 0, count: gzip), patches: patches)
        }
        let heldA = planned("network-hosts-00", "a1", rules: 10, gzip: 1000)
        let heldB = planned("network-paths-00", "b1", rules: 20, gzip: 2000)
        let same = planned("cosmetic-generic-00", "c1", rules: 30, gzip: 3000)
        let patchFromHeld = PlannedPatch(
            from: heldA.sha256, fileName: "p.dcz", sha256: "x", bytes: [UInt8](repeating: 1, count: 120))
        let patchFromOther = PlannedPatch(
            from: String(repeating: "f", count: 64), fileName: "q.dcz", sha256: "y", bytes: [1, 2, 3])
        let lists = [
            planned("network-hosts-00", "a2", rules: 11, gzip: 1100, patches: [patchFromHeld]),
            planned("network-paths-00", "b2", rules: 21, gzip: 2100, patches: [patchFromOther]),
            same,
            planned("network-hosts-recent", "r1", rules: 4, gzip: 400),
        ]
        let held = [heldA, heldB, same].map {
            OperatorStatus.ListStatus(
                id: $0.id, file: $0.fileName, rules: $0.rules, bytes: $0.identity.count, gzipBytes: $0.gzip!.count)
        }
        let plan = PublishPlan(lists: lists, manifest: [], manifestSHA256: "m", report: [], layoutState: [])
        let set = PublishedSet(
            directory: "/nonexistent", manifest: .init(lists: []), content: SiteContent(manifest: nil, files: [:]),
            layoutState: nil)
        let publish = Publisher.Outcome(
            plan: plan, manifestChanged: true, createdFiles: [], removedFiles: [],
            patches: .init(), published: set)
        var outcome = RefreshOutcome(mode: .online, startedAt: Date(timeIntervalSince1970: 1_800_000_000))
        outcome.set = .published(publish, .init(sources: [], lists: []))

        let record = RefreshRecord(
            outcome, previous: held, compiled: ["network-hosts-00": 1.5, "cosmetic-generic-00": 9])
        #expect(record.result == "published")
        #expect(record.summary == "published: 3 of 4 lists changed")
        #expect(record.listsChanged == ["network-hosts-00", "network-paths-00", "network-hosts-recent"])
        // 120 (patch from the held version) + 2100 (no usable patch) + 400 (new list, whole).
        #expect(record.deviceCost == .init(bytesWithPatches: 2620, bytesWhole: 3600, listsToRecompile: 3))
        #expect(record.rulesByFamily == ["network-hosts": 15, "network-paths": 21, "cosmetic-generic": 30])
        #expect(
            record.lists.map(\.compileSeconds) == [1.5, nil, nil, nil],
            "only versions the gate compiled now carry a time")
        #expect(record.lists.map(\.changed) == [true, true, false, true])

        var failed = RefreshOutcome(mode: .online, startedAt: Date())
        failed.set = .failed(.conversion("out of memory"))
        let failure = RefreshRecord(failed, previous: held, compiled: [:])
        #expect(failure.result == "failed" && failure.summary == "failed: conversion failed: out of memory")
        #expect(failure.deviceCost.listsToRecompile == 0 && failure.lists.isEmpty)
    }
}
