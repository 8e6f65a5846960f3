import Converter
import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import OriginConfig
@testable import OriginRefresh
@testable import OriginServe
@testable import OriginStore

/// A line WebKit rejects in a set other than the default one is isolated in real WebKit and shown
/// for that set: on its own board, in `/status`'s `sets[]`, on `/status?set=<name>` and in
/// `/metrics`, served by the real HTTP server on loopback; the default set shows none.
@Suite(.serialized) struct SetIsolationStatusTests {
    static let list = Array(
        "[Adblock Plus 2.0]\n! Title: test\n||ads.example^\n||poison.example^\n||tracker.example^\n".utf8)

    @Test(.timeLimit(.minutes(5)))
    func aLineIsolatedInAnotherSetShowsOnStatusForThatSet() throws {
        let scratch = ScratchDirectory("set-isolation")
        let upstream = try UpstreamServer()
        defer { upstream.stop() }
        upstream.set("/easylist.txt", .serve(body: Self.list))
        var configuration = Configuration()
        configuration.upstreams = [Configuration.Upstream(id: "easylist", url: upstream.url("/easylist.txt"))]
        configuration.refresh.attempts = 1
        configuration.sets = [
            ListSetDefinition(name: "default", upstreams: ["easylist"]),
            ListSetDefinition(name: "modern", upstreams: ["easylist"]),
        ]
        let resolved = ResolvedConfiguration(configuration: configuration, baseDirectory: scratch.path)
        let status = StatusBoard()
        let stages = RefreshStages(
            resolved: resolved, status: status, log: LogLines().log, gate: try PoisonFixture.gate())
        var others = try stages.loadOtherSets()
        // Only the modern set's output carries a rule WebKit rejects.
        others[0].convertStage.reviseOutput = PoisonFixture.poisoning("poison")
        var state = PersistentState()
        var published: PublishedSet?
        let outcome = stages.run(.online, state: &state, published: &published, others: &others)
        #expect(outcome.result == .published)
        let board = try #require(status.sets["modern"])
        #expect(board.current.isolatedLines?.map(\.text) == ["||poison.example^"])
        #expect(status.current.isolatedLines == [], "the default set dropped nothing")
        // Each set's history has the gate's compile time of each of its own new lists.
        for history in [board.history, status.history] {
            let record = try #require(history?.current.last)
            #expect(!record.lists.isEmpty && record.lists.allSatisfy { $0.compileSeconds != nil }, "\(record.lists)")
        }

        let server = try ServerHarness(
            content: try #require(published).content, admin: AdminCredential(token: "t"), status: status)
        defer { server.stop() }
        server.server.describeSets(configuration.publishedSets, defaultSet: "default")
        server.server.install(try #require(others[0].published).content, set: "modern")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(RawHTTPResponse.get(port: server.port, path: "/status").body))
                as? [String: Any])
        let sets = try #require(document["sets"] as? [[String: Any]])
        let modern = try #require(sets.first { $0["name"] as? String == "modern" })
        let lines = try #require(modern["isolatedLines"] as? [[String: Any]], "\(modern)")
        let first = lines.first ?? [:]
        #expect(first["text"] as? String == "||poison.example^")
        #expect(first["line"] as? Int == 4)
        #expect((modern["lastRefresh"] as? [String: Any])?["result"] as? String == "published")
        let defaultEntry = sets.first { $0["name"] as? String == "default" } ?? [:]
        #expect((defaultEntry["isolatedLines"] as? [Any])?.isEmpty == true)

        let page = String(
            decoding: try RawHTTPResponse.get(
                port: server.port, path: "/status?set=modern", headers: ["Accept": "text/html"]
            ).body, as: UTF8.self)
        #expect(page.contains("set modern") && page.contains("<code>||poison.example^</code>"))
        #expect(page.contains("Invalid or unsupported regular expression."))
        #expect(
            page.contains("<input type=\"hidden\" name=\"set\" value=\"modern\">"), "its explain form asks that set")
        let setJSON = try #require(
            try JSONSerialization.jsonObject(
                with: Data(RawHTTPResponse.get(port: server.port, path: "/status?set=modern").body)) as? [String: Any])
        #expect((setJSON["isolatedLines"] as? [Any])?.count == 1)
        let defaultPage = String(
            decoding: try RawHTTPResponse.get(port: server.port, path: "/status", headers: ["Accept": "text/html"])
                .body,
            as: UTF8.self)
        #expect(!defaultPage.contains("<code>||poison.example^</code>"), "the default set's page lists no such line")
        #expect(defaultPage.contains("href=\"status?set=modern\""), "the sets table links each set's page")
        #expect(try RawHTTPResponse.get(port: server.port, path: "/status?set=nope").status == 404)
        let metrics = String(
            decoding: try RawHTTPResponse.get(port: server.port, path: "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("listserver_set_isolated_lines{set=\"modern\",target=\"safari-17\"} 1"))
        #expect(metrics.contains("listserver_set_isolated_lines{set=\"default\",target=\"safari-17\"} 0"))
    }
}
