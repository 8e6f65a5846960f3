import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginConfig
@testable import OriginRefresh
@testable import OriginServe
@testable import OriginStore

/// A local upstream (`upstreams[].path`): an operator's own ABP file, read at each refresh and
/// checked like a fetched body. A bad file keeps the last good copy and the served set, and the
/// status names the file and what is wrong with it.
@Suite struct LocalUpstreamTests {
    static let header = "[Adblock Plus 2.0]\n! Operator rules\n"

    /// `count` blocking rules on distinct hosts, with the ABP header.
    static func rules(_ count: Int, tag: String = "op") -> [UInt8] {
        Array((header + (0..<count).map { "||\(tag)-\($0).operator.example^\n" }.joined()).utf8)
    }

    /// A refresh harness whose one upstream is the local file `operator.txt` (relative path, as in config.json).
    static func harness() throws -> RefreshHarness {
        try RefreshHarness { configuration in
            configuration.upstreams = [
                Configuration.Upstream(id: "operator", url: "operator.txt", path: "operator.txt")
            ]
        }
    }

    static func status(_ harness: RefreshHarness) -> OperatorStatus.UpstreamStatus? {
        harness.status.current.upstreams.first { $0.id == "operator" }
    }

    @Test func anEditedLocalFileIsPublishedAtTheNextRefreshAndReadOfflineToo() throws {
        var harness = try Self.harness()
        let file = harness.directory.sub("operator.txt")
        try Self.rules(20).write(to: file)
        #expect(harness.run(.offline).result == .published, "a local file needs no network")
        let first = try String(contentsOfFile: harness.manifestPath, encoding: .utf8)
        try (Self.rules(20) + Array("||fix-now.operator.example^\n".utf8)).write(to: file)
        #expect(harness.run().result == .published)
        let lists = try #require(harness.published).listBytesByID.values.map { String(decoding: $0, as: UTF8.self) }
        #expect(lists.contains { $0.contains("fix-now") }, "the new local rule is in a published list")
        #expect(try String(contentsOfFile: harness.manifestPath, encoding: .utf8) != first)
        #expect(harness.run().result == .unchanged, "the same file again publishes nothing")
    }

    /// Each bad local file after a good publish: the last good copy and the served set stay.
    @Test(arguments: ["missing", "directory", "not-abp", "shrunk", "empty"])
    func aBadLocalFileKeepsTheLastGoodCopy(fault: String) throws {
        var harness = try Self.harness()
        let file = harness.directory.sub("operator.txt")
        let good = Self.rules(40)
        try good.write(to: file)
        #expect(harness.run().result == .published)
        let manifest = try Data(contentsOf: URL(fileURLWithPath: harness.manifestPath))
        var expected = (result: "rejected", says: "")
        switch fault {
        case "missing":
            try FileManager.default.removeItem(atPath: file)
            expected = ("failed", "\(file): cannot read the local upstream (no such file)")
        case "directory":
            try FileManager.default.removeItem(atPath: file)
            try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: false)
            expected = ("failed", "\(file): cannot read the local upstream (it is a directory)")
        case "not-abp":
            try Array("<html>oops</html>\n||a.example^\n".utf8).write(to: file)
            expected.says = "does not start with \"[Adblock Plus\""
        case "shrunk":
            try Self.rules(10).write(to: file)
            expected.says = "less than 50% of the last good copy's 40"
        case "empty":
            try [UInt8]().write(to: file)
            expected.says = "the body is empty"
        default:
            Issue.record("unknown fault \(fault)")
        }
        _ = harness.run()
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: harness.manifestPath)) == manifest,
            "the served set stays the last good one")
        #expect(harness.pipeline.store.lastGoodCopy("operator") == good, "the last good copy stays in use")
        let upstream = try #require(Self.status(harness))
        #expect(upstream.lastResult == expected.result)
        #expect(upstream.lastError?.contains(expected.says) == true, "\(fault): \(upstream.lastError ?? "no error")")
    }

    @Test func configNeedsEitherAURLOrAPath() throws {
        let both = #"{"upstreams":[{"id":"a","url":"https://a.example/","path":"a.txt"}]}"#
        let neither = #"{"upstreams":[{"id":"a"}]}"#
        for (text, says) in [(both, "give either \"url\" (fetched) or \"path\""), (neither, "or give \"path\"")] {
            #expect {
                _ = try ConfigurationLoader.decode(Data(text.utf8), file: "c.json")
            } throws: { ($0 as? ConfigurationError)?.problem.contains(says) == true }
        }
        let local = try ConfigurationLoader.decode(
            Data(#"{"upstreams":[{"id":"mine","path":"rules/mine.txt"}]}"#.utf8), file: "c.json")
        #expect(local.upstreams.first?.path == "rules/mine.txt")
        let resolved = ResolvedConfiguration(configuration: local, baseDirectory: "/etc/listserver")
        #expect(resolved.configuration.upstreams.first?.path == "/etc/listserver/rules/mine.txt")
    }
}
