import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginConfig
@testable import OriginRefresh
@testable import OriginStore

/// Whole refresh cycles against a real loopback upstream, with small slices of the real lists.
@Suite struct RefreshTests {

    @Test func fetchesConvertsPublishesThenA304ChangesNothing() throws {
        var harness = try RefreshHarness()
        let list = try FixtureLists.easylist(lines: 400)
        harness.server.set(
            "/easylist.txt", .serve(body: list, etag: "\"d19\"", lastModified: "Mon, 19 Oct 2020 00:45:29 GMT"))
        let first = harness.run()
        #expect(first.result == .published)
        #expect(first.published?.content.manifest != nil)
        #expect(harness.upstreamStatus?.source == "upstream")
        #expect(harness.upstreamStatus?.lastResult == "updated")
        #expect(harness.pipeline.store.lastGoodCopy("easylist") == list)
        let manifest = try Data(contentsOf: URL(fileURLWithPath: harness.manifestPath))
        let inode = try FileManager.default.attributesOfItem(atPath: harness.manifestPath)[.systemFileNumber] as? Int

        let second = harness.run()
        #expect(second.result == .unchanged)
        #expect(second.published?.content == nil, "a 304 means no conversion and no publish")
        #expect(harness.upstreamStatus?.lastResult == "not-modified")
        #expect(harness.server.requests(for: "/easylist.txt").last?.headers["if-none-match"] == "\"d19\"")
        #expect(
            harness.server.requests(for: "/easylist.txt").last?.headers["if-modified-since"]
                == "Mon, 19 Oct 2020 00:45:29 GMT")
        #expect(try Data(contentsOf: URL(fileURLWithPath: harness.manifestPath)) == manifest)
        #expect(
            try FileManager.default.attributesOfItem(atPath: harness.manifestPath)[.systemFileNumber] as? Int == inode)
        #expect(harness.status.current.lastRefresh?.result == "unchanged")

        // The validators survive a restart (state.json).
        let reloaded = try harness.pipeline.store.load()
        #expect(reloaded.upstreams["easylist"]?.etag == "\"d19\"")
        #expect(reloaded.upstreams["easylist"]?.lastModified == "Mon, 19 Oct 2020 00:45:29 GMT")
    }

    @Test func expiredFilesAreRemovedEvenWhenUpstreamKeepsAnswering304() throws {
        var harness = try RefreshHarness()
        harness.server.set("/easylist.txt", .serve(body: try FixtureLists.easylist(lines: 400), etag: "\"1\""))
        #expect(harness.run().result == .published)
        let old = Set(harness.status.current.lists.map(\.file))
        // Rules removed: the lists that held them change (new rules alone may just add a list).
        let lines = String(decoding: try FixtureLists.easylist(lines: 400), as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false)
        let trimmed = (lines[0..<100] + lines[140...]).joined(separator: "\n")
        harness.server.set("/easylist.txt", .serve(body: Array(trimmed.utf8), etag: "\"2\""))
        #expect(harness.run().result == .published)
        let replaced = old.subtracting(harness.status.current.lists.map(\.file))
        #expect(!replaced.isEmpty)
        for name in replaced { #expect(harness.pipeline.publisher.writer.exists(name)) }
        // Eight days of 304s later: no publish, but the grace period (7 days) of the old files is over.
        let later = Date().addingTimeInterval(8 * 86_400)
        let summary = harness.pipeline.fetchStage.run(
            .online, state: &harness.state, published: &harness.published, now: { later })
        #expect(summary.result == .unchanged)
        for name in replaced {
            #expect(!harness.pipeline.publisher.writer.exists(name), "\(name) outlived its grace period")
        }
        let served = try #require(summary.published?.content, "a generation without the expired files is served")
        for name in replaced { #expect(served.files[name] == nil) }
        for name in harness.status.current.lists.map(\.file) { #expect(served.files[name] != nil) }
    }

    /// `conversion.removalGraceRuns` reaches the server's refresh as `convert --removal-grace` does:
    /// with it, lists that only lost rules keep their published bytes (and devices download nothing).
    @Test func removalGraceFromConfigKeepsListsThatOnlyLostRules() throws {
        let full = try FixtureLists.easylist(lines: 3_000)
        let lines = String(decoding: full, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let trimmed = Array((lines[0..<1_000] + lines[1_040...]).joined(separator: "\n").utf8)
        var replaced: [Int: Int] = [:]
        for grace in [0, 2] {
            var harness = try RefreshHarness {
                $0.conversion.removalGraceRuns = grace
                $0.conversion.chunkSize = 400
            }
            harness.server.set("/easylist.txt", .serve(body: full, etag: "\"1\""))
            #expect(harness.run().result == .published)
            let before = Set(harness.status.current.lists.map(\.file))
            harness.server.set("/easylist.txt", .serve(body: trimmed, etag: "\"2\""))
            _ = harness.run()
            replaced[grace] = before.subtracting(harness.status.current.lists.map(\.file)).count
        }
        #expect(replaced[0]! > 0, "removing rules changes lists without grace")
        #expect(replaced[2] == 0, "with removalGraceRuns 2 no list changes for removals alone: \(replaced)")
    }

    @Test func schedulerFetchesOnStartOnlyWhenDueAndOnTrigger() throws {
        let harness = try RefreshHarness()
        harness.server.set("/easylist.txt", .serve(body: try FixtureLists.easylist(lines: 400), etag: "\"1\""))
        let installed = LogLines()
        var recent = PersistentState()
        recent.lastRefreshAt = Date()
        let notDue = RefreshSource(stages: harness.pipeline, state: recent, published: nil) { _ in
            installed.log.info("installed")
        }
        notDue.startWhenDue()
        notDue.waitUntilIdle()
        #expect(harness.server.requests.isEmpty, "refreshed a moment ago: nothing to fetch at start")
        notDue.trigger()
        notDue.waitUntilIdle()
        notDue.waitUntilIdle()
        #expect(harness.server.requests.count == 1, "the admin trigger fetches at once")
        #expect(
            harness.status.current.lastRefresh?.nextAt.map { $0.timeIntervalSinceNow > 80_000 } == true,
            "next refresh about a day away")
        #expect(installed.lines.count == 1, "and installs the new set")
        notDue.stop()

        let due = RefreshSource(stages: harness.pipeline, state: PersistentState(), published: nil) { _ in }
        due.startWhenDue()
        due.waitUntilIdle()
        #expect(harness.server.requests.count == 2, "never refreshed: fetch at start")
        due.stop()
    }

    @Test func aNewUpstreamVersionIsPublished() throws {
        var harness = try RefreshHarness()
        harness.server.set("/easylist.txt", .serve(body: try FixtureLists.easylist(lines: 400), etag: "\"d19\""))
        #expect(harness.run().result == .published)
        let before = harness.status.current.manifestSHA256
        harness.server.set(
            "/easylist.txt",
            .serve(
                body: try FixtureLists.easylist(lines: 400) + Array("||new-ad-server.example^\n".utf8), etag: "\"d20\"")
        )
        #expect(harness.run().result == .published)
        #expect(harness.status.current.manifestSHA256 != before)
        #expect(harness.status.current.lists.isEmpty == false)
    }

    /// Each upstream fault after a good publish: the set stays, the status says why.
    @Test(arguments: [
        "500", "404", "garbage", "empty", "half-rules", "truncated", "html-error-page", "too-large", "redirect-loop",
    ])
    func upstreamFaultKeepsTheLastGoodSet(fault: String) throws {
        var harness = try RefreshHarness()
        let good = try FixtureLists.easylist(lines: 400)
        harness.server.set("/easylist.txt", .serve(body: good, etag: "\"good\""))
        #expect(harness.run().result == .published)
        let manifest = try Data(contentsOf: URL(fileURLWithPath: harness.manifestPath))
        var expectedResult = "rejected"
        switch fault {
        case "500":
            harness.server.set("/easylist.txt", .status(500))
            expectedResult = "failed"
        case "404":
            harness.server.set("/easylist.txt", .status(404))
            expectedResult = "failed"
        case "garbage":
            harness.server.set("/easylist.txt", .serve(body: (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }))
        case "empty": harness.server.set("/easylist.txt", .serve(body: []))
        case "half-rules": harness.server.set("/easylist.txt", .serve(body: try FixtureLists.easylist(lines: 150)))
        case "truncated":
            harness.server.set("/easylist.txt", .truncated(body: good, sentBytes: good.count / 3))
            expectedResult = "failed"
        case "html-error-page":
            harness.server.set(
                "/easylist.txt", .serve(body: Array("<html><body>Service Unavailable</body></html>".utf8)))
        case "too-large":
            harness.server.set("/easylist.txt", .serve(body: [UInt8](repeating: 0x21, count: 2 << 20)))
            expectedResult = "failed"
        case "redirect-loop":
            harness.server.set("/easylist.txt", .redirect(location: "/easylist.txt"))
            expectedResult = "failed"
        default: Issue.record("unknown fault \(fault)")
        }
        let summary = harness.run()
        #expect(summary.published?.content == nil)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: harness.manifestPath)) == manifest,
            "the served set stays the last good one")
        #expect(harness.pipeline.store.lastGoodCopy("easylist") == good, "the last good copy stays in use")
        let upstream = try #require(harness.upstreamStatus)
        #expect(upstream.lastResult == expectedResult)
        #expect(upstream.lastError?.isEmpty == false)
        if expectedResult == "rejected" {
            let kept =
                (try? FileManager.default.contentsOfDirectory(atPath: harness.pipeline.store.rejectedDirectory)) ?? []
            #expect(kept.count == 1, "the rejected body is kept for inspection")
        }
        #expect(harness.logLines.lines.contains { $0.contains("error") || $0.contains("warning") })
        if fault == "500" {
            #expect(harness.server.requests(for: "/easylist.txt").count == 3, "one good fetch, then 2 attempts")
        }
        if fault == "404" {
            #expect(harness.server.requests(for: "/easylist.txt").count == 2, "4xx is not retried")
        }
    }

    @Test func firstStartWithoutNetworkPublishesTheBundledSnapshot() throws {
        var harness = try RefreshHarness(snapshot: try FixtureLists.easylist(lines: 300), attempts: 1)
        harness.server.stop()
        let offline = harness.run(.offline)
        #expect(offline.result == .published)
        #expect(harness.upstreamStatus?.source == "bundled-snapshot")
        #expect(harness.upstreamStatus?.sourceDate == "2025-10")
        // Then the online refresh fails (no upstream) and changes nothing.
        let online = harness.run(.online)
        guard case .failed(let reason) = online.result else {
            Issue.record("an unreachable upstream must make the refresh fail, got \(online.result)")
            return
        }
        #expect(reason.contains("easylist: "))
        #expect(harness.status.current.lastRefresh?.result == "failed")
        #expect(harness.status.current.lastRefresh?.error?.contains("connection failed") == true)
        #expect(harness.upstreamStatus?.lastResult == "failed")
        #expect(harness.upstreamStatus?.source == "bundled-snapshot")
    }

    @Test func aLostStateDirectoryDoesNotReplaceTheServedSetWithTheSnapshot() throws {
        var harness = try RefreshHarness(snapshot: try FixtureLists.easylist(lines: 300), attempts: 1)
        harness.server.set("/easylist.txt", .serve(body: try FixtureLists.easylist(lines: 400), etag: "\"1\""))
        #expect(harness.run().result == .published)
        let manifest = try Data(contentsOf: URL(fileURLWithPath: harness.manifestPath))
        try FileManager.default.removeItem(atPath: harness.pipeline.store.directory)
        harness.state = try harness.pipeline.store.load()
        harness.server.stop()
        guard case .failed = harness.run().result else {
            Issue.record("no network and no state: the refresh fails")
            return
        }
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: harness.manifestPath)) == manifest,
            "the served set is kept, not replaced by the snapshot")
        #expect(harness.logLines.lines.contains { $0.contains("unknown origin") })
    }

    @Test func noSnapshotAndNoNetworkFailsWithAClearReason() throws {
        var harness = try RefreshHarness(attempts: 1)
        harness.server.stop()
        let summary = harness.run(.online)
        guard case .failed(let reason) = summary.result else {
            Issue.record("expected a failure, got \(summary.result)")
            return
        }
        #expect(reason.contains("no usable copy of easylist"))
        #expect(!FileManager.default.fileExists(atPath: harness.manifestPath))
    }

    @Test func bodyChecksCountRulesAndSpotNonLists() throws {
        let check = UpstreamBodyCheck(requiredHeader: "[Adblock Plus", minimumRuleShare: 0.5, maxBodyBytes: 1 << 20)
        let list = Array("[Adblock Plus 2.0]\n! comment\n\n||a^\r\n||b^\n##.x\n".utf8)
        #expect(UpstreamBodyCheck.countRules(list) == 3)
        #expect(try check.check(list, baselineRules: 6).rules == 3)
        #expect(throws: UpstreamBodyCheck.Rejection.tooFewRules(found: 3, baseline: 7, share: 0.5)) {
            try check.check(list, baselineRules: 7)
        }
        #expect(throws: UpstreamBodyCheck.Rejection.empty) { try check.check([], baselineRules: nil) }
        #expect(
            try check.check(try Gzip.compress(list), baselineRules: nil).text == list,
            "a gzip file served as-is is inflated")
        #expect(try check.check([0xef, 0xbb, 0xbf] + list, baselineRules: nil).rules == 3, "a BOM is allowed")
        #expect { try check.check([0x5b, 0xff, 0xfe], baselineRules: nil) } throws: { error in
            if case UpstreamBodyCheck.Rejection.undecodable = error { return true }
            return false
        }
    }
}
