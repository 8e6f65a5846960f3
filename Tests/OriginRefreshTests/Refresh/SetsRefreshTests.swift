import Foundation
import ListFormat
import OriginTestSupport
import TestSupport
import Testing

@testable import OriginConfig
@testable import OriginRefresh
@testable import OriginStore

/// Every set is a whole set: a set other than the default one carries the unprotected sites in its
/// own signed manifest, and keeps its own refresh history and status, against a real loopback upstream.
@Suite struct SetsRefreshTests {
    static let regionalList = Array("[Adblock Plus 2.0]\n! Title: regional\n||werbung-regional.example^\n".utf8)

    /// `default` converts `easylist`; `de` converts it and `regional`.
    static func harness() throws -> RefreshHarness {
        try RefreshHarness(attempts: 1) { configuration in
            configuration.upstreams.append(
                Configuration.Upstream(id: "regional", url: configuration.upstreams[0].url + "-regional"))
            configuration.unprotectedSites = ["configured.example"]
            configuration.sets = [
                ListSetDefinition(name: "default", upstreams: ["easylist"]),
                ListSetDefinition(name: "de", upstreams: ["easylist", "regional"]),
            ]
        }
    }

    static func manifest(at path: String) throws -> Manifest {
        try Manifest.decode(Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func everySetCarriesTheUnprotectedSitesAndTheAdminEdits() throws {
        var harness = try Self.harness()
        harness.server.set("/easylist.txt", .serve(body: try FixtureLists.easylist(lines: 300)))
        harness.server.set("/easylist.txt-regional", .serve(body: Self.regionalList))
        var others = try harness.pipeline.loadOtherSets()
        let outcome = harness.pipeline.run(
            .online, state: &harness.state, published: &harness.published, others: &others)
        #expect(outcome.result == .published)
        let setManifest = others[0].publisher.writer.path(PublishPlan.manifestName)
        #expect(try Self.manifest(at: harness.manifestPath).unprotectedSites == ["configured.example"])
        #expect(try Self.manifest(at: setManifest).unprotectedSites == ["configured.example"], "the de set's manifest")
        #expect(
            outcome.otherSets.first?.published?.content.manifest?.identity
                == Array(try Data(contentsOf: URL(fileURLWithPath: setManifest))),
            "the set handed to the server is the one that carries them")

        let listsBefore = try Self.manifest(at: setManifest).lists
        let changed = harness.pipeline.publishUnprotectedSites(
            state: &harness.state, published: &harness.published, others: &others, change: .add("shop.example"))
        #expect(changed.default != nil && changed.others["de"] != nil, "an admin edit publishes every set")
        for path in [harness.manifestPath, setManifest] {
            #expect(try Self.manifest(at: path).unprotectedSites == ["configured.example", "shop.example"], "\(path)")
        }
        #expect(try Self.manifest(at: setManifest).lists == listsBefore, "the same lists: nothing to recompile")
        #expect(
            others[0].published?.content.manifest?.identity
                == Array(try Data(contentsOf: URL(fileURLWithPath: setManifest))))
        #expect(
            others[0].state.history.last?.manifestSHA256
                == SHA256Digest.hex(of: Array(try Data(contentsOf: URL(fileURLWithPath: setManifest)))),
            "the set's publish history records its new manifest")
    }

    @Test func eachSetKeepsItsOwnRefreshHistoryAndStatus() throws {
        var harness = try Self.harness()
        harness.server.set("/easylist.txt", .serve(body: try FixtureLists.easylist(lines: 300), etag: "\"e1\""))
        harness.server.set("/easylist.txt-regional", .status(503))
        var others = try harness.pipeline.loadOtherSets()

        // Without its regional list the de set publishes what it has (nothing is served yet); then an
        // easylist update finds the regional list still missing: the default set publishes, the de set
        // fails and keeps its version, each in its own history and on its own board.
        _ = harness.pipeline.run(.online, state: &harness.state, published: &harness.published, others: &others)
        harness.server.set("/easylist.txt", .serve(body: try FixtureLists.easylist(lines: 320), etag: "\"e2\""))
        _ = harness.pipeline.run(.online, state: &harness.state, published: &harness.published, others: &others)
        let setHistory = RefreshHistoryStore(directory: harness.directory.sub("state/sets/de"))
        let failed = try setHistory.load().get()
        #expect(failed.map(\.result) == ["published", "failed"], "\(failed)")
        #expect(failed.last?.summary.contains("no usable copy of regional") == true, "\(failed)")
        let defaultHistory = try RefreshHistoryStore(directory: harness.directory.sub("state")).load().get()
        #expect(defaultHistory.map(\.result) == ["published", "published"])
        let board = try #require(harness.status.sets["de"], "the de set has its own board")
        #expect(board.current.lastRefresh?.result == "failed")
        #expect(board.current.lastRefresh?.error?.hasPrefix("no usable copy of regional") == true)
        #expect(harness.status.current.lastRefresh?.error?.contains("set de: no usable copy") == true)

        // Once it answers, the de set publishes; its record has its own lists and device cost.
        harness.server.set("/easylist.txt-regional", .serve(body: Self.regionalList))
        _ = harness.pipeline.run(.online, state: &harness.state, published: &harness.published, others: &others)
        let second = try setHistory.load().get()
        #expect(second.map(\.result) == ["published", "failed", "published"])
        let setLists = try Self.manifest(at: others[0].publisher.writer.path(PublishPlan.manifestName)).lists
        #expect(second.last?.lists.map(\.file) == setLists.map(\.file), "the de set's lists, not the default set's")
        #expect(second.last?.listsChanged.isEmpty == false && (second.last?.deviceCost.bytesWhole ?? 0) > 0)
        #expect(board.current.lastRefresh?.result == "published")
        #expect(board.current.lists.map(\.file) == setLists.map(\.file))
        #expect(board.history?.current.count == 3, "the status page reads the same history")
        #expect(
            try RefreshHistoryStore(directory: harness.directory.sub("state")).load().get().count == 3,
            "the default set's own history has one record per refresh")

        // A restart reads each set's history back and shows its lists at once.
        let restarted = RefreshStages(
            resolved: harness.pipeline.resolved, status: StatusBoard(), log: harness.logLines.log, gate: nil)
        let reloaded = try restarted.loadOtherSets()
        let reloadedBoard = try #require(restarted.reporting.status.sets["de"])
        #expect(reloadedBoard.history?.current.count == 3)
        #expect(reloadedBoard.current.lists.map(\.file) == setLists.map(\.file))
        #expect(reloaded.count == 1)
    }
}
