import Foundation
import OriginTestSupport
import Testing

@testable import ListOrigin

/// `refresh.deadlineSeconds`: a refresh that is still fetching when its deadline passes (a
/// dripping upstream) gives up before converting and publishing, says so, and the served set
/// stays byte for byte; the next refresh in time publishes as usual.
@Suite struct RefreshDeadlineTests {
    @Test func aRefreshPastItsDeadlineGivesUpAndKeepsTheLastGoodSet() throws {
        var harness = try RefreshHarness(attempts: 1) { configuration in
            configuration.refresh.deadlineSeconds = 1
            configuration.refresh.minimumRuleShare = 0
            configuration.fetch.totalTimeoutSeconds = 20
        }
        harness.server.set("/easylist.txt", .serve(body: try FixtureLists.easylist(lines: 400), etag: "\"1\""))
        #expect(harness.run().result == .published)
        let manifest = try Data(contentsOf: URL(fileURLWithPath: harness.manifestPath))
        let served = harness.published?.content.manifest?.sha256

        // About 2 s to arrive, one byte every 25 ms: past the 1 s deadline before conversion starts.
        let slow = Array("[Adblock Plus 2.0]\n||slow-a.example^\n||slow-b.example^\n||slow-c.example^\n".utf8)
        harness.server.set("/easylist.txt", .drip(body: slow, interval: 0.025))
        let late = harness.run()
        guard case .failed(let reason) = late.result else {
            Issue.record("a refresh past its deadline must fail, got \(late.result)")
            return
        }
        #expect(late.published == nil)
        #expect(
            harness.status.current.lastRefresh?.error?.contains("deadline") == true,
            "\(String(describing: harness.status.current.lastRefresh))")
        #expect(reason.isEmpty == false)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: harness.manifestPath)) == manifest,
            "the published manifest must stay")
        #expect(harness.published?.content.manifest?.sha256 == served)

        // In time again: the copy fetched late is converted and published.
        harness.server.set("/easylist.txt", .serve(body: slow, etag: "\"2\""))
        #expect(harness.run().result == .published)
    }
}
