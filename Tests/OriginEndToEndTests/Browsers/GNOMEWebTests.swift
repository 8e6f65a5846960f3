import ContentBlockerEngine
import Converter
import Foundation
import ListSync
import OriginTestSupport
import PublicSuffix
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginRefresh
@testable import OriginServe
@testable import OriginStore

/// Real GNOME Web (Debian's `epiphany-browser`) as a third-party consumer of the stable list URLs:
/// its `content-filters` set with the gsettings line `/lists/` prints, in a throw-away home under
/// Xvfb and a private D-Bus session (`scripts/gnome-web/epiphany_run.py`), loading a loopback page
/// of real ad and tracker requests from the dev sample through a logging proxy. Three starts: the
/// first downloads and compiles every list; the second, with unchanged lists, fetches and compiles
/// nothing; the third, once GNOME Web's daily refresh is due, downloads every alias again and,
/// finding the same SHA-256, still compiles nothing; the fourth, after a set that dropped a list id
/// (its alias answers 410), keeps blocking with the copy it has. Every start blocks what the engine blocks.
@Suite(.serialized) struct GNOMEWebTests {
    // swift-format-ignore: AlwaysUseLowerCamelCase
    // Its fields are the keys of epiphany_run.py's JSON report.
    struct RunResult: Decodable {
        // swift-format-ignore: AlwaysUseLowerCamelCase
        // Its fields are the keys of a Python tool's JSON report.
        struct StoreFile: Decodable, Equatable {
            var bytes: Int
            var mtime_ns: Int
            var inode: Int
        }

        // swift-format-ignore: AlwaysUseLowerCamelCase
        // Its fields are the keys of a Python tool's JSON report.
        struct Sidecar: Decodable {
            var uri: String
            var sha256: String
            var last_update: Int
        }

        var finished: Bool
        var seconds: Double
        var gsettings: String?
        var proxied: [String]
        var store_before: [String: StoreFile]
        var store: [String: StoreFile]
        var sidecars: [Sidecar]
        var filter_log: [String]

        var compiled: [String: StoreFile] { store.filter { $0.key.hasPrefix("compiled/") } }
    }

    /// The converted 2025-10 snapshot as a served generation, with its manifest entries and the engine over it.
    static func snapshotSet() throws -> (content: SiteContent, entries: [Manifest.Entry], engine: ContentBlockerEngine)
    {
        let lists = try ListConverter().convert(try WebKitTestSupport.snapshotSources()).lists
        var files: [String: SiteContent.Entry] = [:]
        var entries: [Manifest.Entry] = []
        let published = Date(timeIntervalSince1970: 1_764_547_200)
        for list in lists {
            let hash = SHA256Digest.hex(of: list.json)
            let name = PublishPlan.fileName(id: list.id, sha256: hash)
            files[name] = SiteContent.Entry(
                name: name, identity: list.json, gzip: try Gzip.compress(list.json), sha256: hash,
                lastModified: published)
            entries.append(
                Manifest.Entry(id: list.id, file: name, sha256: hash, rules: list.ruleCount, bytes: list.json.count))
        }
        let manifest = Manifest(lists: entries).encoded()
        let content = SiteContent(
            manifest: SiteContent.Entry(
                name: "manifest.json", identity: manifest, gzip: nil, sha256: SHA256Digest.hex(of: manifest),
                lastModified: published), files: files)
        let engine = try ContentBlockerEngine(
            lists: lists.map { ($0.id, $0.json) }, registrableDomains: try PublicSuffixFile.load())
        return (content, entries, engine)
    }

    /// Dev-sample requests a page can make with a tag (image, script, stylesheet), over http so the
    /// proxy sees each URL, each decided by the engine for a page on 127.0.0.1.
    static func sampleRequests(_ engine: ContentBlockerEngine, each: Int) throws -> (
        blocked: [PageResource], allowed: [PageResource]
    ) {
        let file = Repository.root.appendingPathComponent("Tests/Fixtures/requests/dev-sample.jsonl")
        let tags = ["image": "img", "script": "script", "stylesheet": "style"]
        var seen = Set<String>()
        var blocked: [PageResource] = []
        var allowed: [PageResource] = []
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
            let request = try JSONDecoder().decode(DecisionEngineWebViewTests.SampleRequest.self, from: Data(line.utf8))
            guard let tag = tags[request.type], request.url.hasPrefix("http"),
                let components = URLComponents(string: request.url),
                let host = components.host, !host.isEmpty, host != "127.0.0.1", host != "localhost"
            else { continue }
            var http = components
            http.scheme = "http"
            http.port = nil
            http.fragment = nil
            if http.path.isEmpty { http.path = "/" }
            guard let url = http.string, url.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "\"" }),
                seen.insert(url).inserted
            else { continue }
            let type = try #require(ABPRequestType(rawValue: request.type))
            let isBlocked = engine.isBlocked(
                try BlockerRequest(url: url, source: "http://127.0.0.1/page.html", type: type))
            if isBlocked, blocked.count < each { blocked.append(PageResource(url: url, tag: tag, type: request.type)) }
            if !isBlocked, allowed.count < each { allowed.append(PageResource(url: url, tag: tag, type: request.type)) }
            if blocked.count == each, allowed.count == each { break }
        }
        return (blocked, allowed)
    }

    struct PageResource: Codable, Hashable {
        var url: String
        var tag: String
        /// The ABP request type the engine decided it as.
        var type: String
    }

    static func run(home: URL, page: URL, gsettings: [String], ageSidecars: Int = 0) throws -> RunResult {
        let out = home.deletingLastPathComponent().appendingPathComponent("result-\(UUID().uuidString).json")
        var arguments = ["--home", home.path, "--page", page.path, "--out", out.path]
        for line in gsettings { arguments += ["--gsettings", line] }
        if ageSidecars > 0 { arguments += ["--age-sidecars", String(ageSidecars)] }
        let script = Repository.root.appendingPathComponent("scripts/gnome-web/epiphany_run.py").path
        let finished = try ChildRun.run(WebKitTestSupport.python, [script] + arguments, timeout: 400)
        let result = try JSONDecoder().decode(RunResult.self, from: try Data(contentsOf: out))
        #expect(
            finished.status == 0,
            "GNOME Web did not finish the page: \(finished.stderr)\n\(result.filter_log.suffix(20).joined(separator: "\n"))"
        )
        return result
    }

    /// Blocked requests never reach the proxy; allowed ones all do; nothing else does (so a blocked
    /// URL cannot slip through under another spelling); nothing tunnels past it.
    static func expectBlocking(_ result: RunResult, blocked: [PageResource], allowed: [PageResource], start: String) {
        let proxied = Set(result.proxied)
        let leaked = blocked.map(\.url).filter { proxied.contains($0) }
        let missing = allowed.map(\.url).filter { !proxied.contains($0) }
        #expect(
            leaked.isEmpty,
            """
            \(start): \(leaked.count) of \(blocked.count) blocked requests reached the proxy after \(result.seconds) s: \
            \(leaked.prefix(10)); GNOME Web's filter log:
            \(result.filter_log.suffix(40).joined(separator: "\n"))
            """)
        #expect(
            missing.isEmpty,
            "\(start): \(missing.count) of \(allowed.count) allowed requests never reached the proxy: \(missing.prefix(10))"
        )
        let unexpected = proxied.subtracting(allowed.map(\.url))
        #expect(
            unexpected.isEmpty,
            "\(start): the proxy saw requests the page did not allow: \(Array(unexpected.prefix(10)))")
        #expect(
            !result.proxied.contains { $0.hasPrefix("CONNECT") },
            "\(start): \(result.proxied.filter { $0.hasPrefix("CONNECT") })")
    }

    @Test func gnomeWebBlocksWithTheAliasesAndRecompilesNothingWhenTheyAreUnchanged() throws {
        #expect(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/epiphany"),
            "GNOME Web missing: apt-get install epiphany-browser (scripts/setup.sh test does)")
        let (content, entries, engine) = try Self.snapshotSet()
        let harness = try ServerHarness(configure: { $0.accessLog = true }, content: content)
        defer { harness.stop() }
        let (blocked, allowed) = try Self.sampleRequests(engine, each: 120)
        #expect(blocked.count == 120 && allowed.count == 120)

        let scratch = ScratchDirectory("gnome-web")
        let home = URL(fileURLWithPath: scratch.path).appendingPathComponent("home")
        let page = URL(fileURLWithPath: scratch.path).appendingPathComponent("page.json")
        try JSONEncoder().encode(["resources": (blocked + allowed).sorted { $0.url < $1.url }]).write(to: page)
        // The lines a GNOME Web user copies from the index, run as they are.
        let index = try #require(
            JSONSerialization.jsonObject(with: Data(try harness.request("/lists/").body)) as? [String: Any])
        let lines = [try #require(index["gnomeWeb"] as? String), try #require(index["gnomeWeb43"] as? String)]
        let aliasURLs = entries.map { "http://127.0.0.1:\(harness.port)/lists/\($0.id).json" }
        func aliasRequests() -> Int {
            harness.log.filter { $0.contains(" GET /lists/") && $0.hasSuffix("us") && $0.contains(".json 200 ") }.count
        }

        // Start 1: every alias downloaded once and compiled; the page loads only after that.
        let first = try Self.run(home: home, page: page, gsettings: lines)
        #expect(first.finished)
        print(
            "GNOME Web start 1: \(first.seconds) s, \(entries.count) lists, \(first.proxied.count) proxied, via `\(first.gsettings ?? "")`"
        )
        #expect(aliasRequests() == entries.count)
        #expect(first.sidecars.map(\.uri).sorted() == aliasURLs.sorted())
        for sidecar in first.sidecars {
            let entry = entries.first { sidecar.uri.hasSuffix("/lists/\($0.id).json") }
            #expect(
                sidecar.sha256 == entry?.sha256,
                "GNOME Web's checksum of \(sidecar.uri) is the manifest's SHA-256 (the ETag's source)")
        }
        #expect(first.compiled.count == entries.count)
        Self.expectBlocking(first, blocked: blocked, allowed: allowed, start: "start 1")

        // Start 2, lists unchanged and fetched less than a day ago: no download, no compile.
        let second = try Self.run(home: home, page: page, gsettings: lines)
        #expect(aliasRequests() == entries.count, "no alias is fetched again within GNOME Web's day")
        #expect(second.store == first.store, "the filter store is untouched")
        #expect(!second.filter_log.contains { $0.contains("compiled successfully") })
        Self.expectBlocking(second, blocked: blocked, allowed: allowed, start: "start 2")

        // Start 3, a day later for GNOME Web: every alias downloaded again, same SHA-256, nothing compiled.
        let third = try Self.run(home: home, page: page, gsettings: lines, ageSidecars: 2 * 86_400)
        #expect(aliasRequests() == 2 * entries.count, "the daily refresh downloads each alias")
        #expect(third.compiled == first.compiled, "no compiled filter was rewritten")
        #expect(third.filter_log.filter { $0.contains("recompilation skipped") }.count == entries.count)
        #expect(!third.filter_log.contains { $0.contains("compiled successfully") })
        #expect(
            third.sidecars.allSatisfy { sidecar in
                first.sidecars.contains { $0.uri == sidecar.uri && $0.last_update < sidecar.last_update }
            })
        Self.expectBlocking(third, blocked: blocked, allowed: allowed, start: "start 3")

        // Start 4, refresh due again, but the set no longer has one id (its last file still kept):
        // the alias answers 410 and GNOME Web keeps the filter it compiled, so nothing it blocked
        // gets through. The id chosen matters: without its rules some sampled requests would pass.
        let retired = "network-hosts-01"
        let without = try ContentBlockerEngine(
            lists: entries.filter { $0.id != retired }.map { ($0.id, content.files[$0.file]!.identity) },
            registrableDomains: try PublicSuffixFile.load())
        let source = "http://127.0.0.1/page.html"
        #expect(
            try blocked.contains {
                !without.isBlocked(
                    try BlockerRequest(
                        url: $0.url, source: source, type: try #require(ABPRequestType(rawValue: $0.type))))
            })
        harness.server.install(try content.dropping(retired, keepFiles: true))
        let fourth = try Self.run(home: home, page: page, gsettings: lines, ageSidecars: 2 * 86_400)
        #expect(harness.log.contains { $0.contains(" GET /lists/\(retired).json 410 ") })
        #expect(fourth.compiled == first.compiled, "the retired list's compiled copy stays")
        Self.expectBlocking(fourth, blocked: blocked, allowed: allowed, start: "start 4")
        withExtendedLifetime(scratch) {}
    }
}
