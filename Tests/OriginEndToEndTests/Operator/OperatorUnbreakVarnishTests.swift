import Foundation
import ListSync
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginConfig
@testable import OriginRefresh
@testable import OriginServe
@testable import OriginStore

/// The two tools of "a site is broken", end to end: a real `listserver serve` (local upstreams, a
/// signing key, the admin token) behind a real Varnish edge (scripts/varnish/cdn.vcl), and a
/// device store synced through the edge with ListSync. An operator's local rule changes exactly
/// one list; an unprotected site changes only the manifest, so the device recompiles nothing.
@Suite(.serialized) struct OperatorUnbreakVarnishTests {
    static let token = "unbreak-token"
    static let operatorHeader = "[Adblock Plus 2.0]\n! Title: operator rules\n||operator-first.example^\n"

    static func writeConfig(_ directory: String) throws {
        let config = """
            {"publicDir": "public", "stateDir": "state",
             "upstreams": [{"id": "easylist", "path": "\(ListServerProcess.repositorySnapshot)/easylist.txt"},
                           {"id": "operator", "path": "operator.txt"}],
             "refresh": {"jitterSeconds": 0},
             "publish": {"verifyWithWebKit": "off"},
             "http": {"manifestMaxAgeSeconds": 1, "manifestStaleWhileRevalidateSeconds": 0},
             "unprotectedSites": ["configured.example"]}
            """
        try Array(config.utf8).write(to: directory + "/config.json")
    }

    static func admin(_ server: ListServerProcess, _ path: String) async throws -> (Int, String) {
        let (status, body) = try await ListServerProcess.request(
            server.url(path), method: "POST", headers: ["Authorization": "Bearer \(token)"])
        return (status, String(decoding: body, as: UTF8.self))
    }

    /// Waits (bounded) until the edge serves a manifest that satisfies `ready`; returns it.
    static func edgeManifest(_ cdn: VarnishCDN, _ ready: @escaping (Manifest) -> Bool) async throws -> Manifest {
        var found: Manifest?
        _ = try await eventually(timeout: 60, interval: 0.2) {
            let response = try RawHTTPResponse.get(port: cdn.port, path: "/manifest.json")
            guard response.status == 200, let manifest = try? Manifest.decode(Data(response.body)), ready(manifest)
            else { return false }
            found = manifest
            return true
        }
        return try #require(found, "the edge never served the expected manifest")
    }

    @Test func aLocalRuleChangesOneListAndAnUnprotectedSiteOnlyTheManifest() async throws {
        let scratch = ScratchDirectory("unbreak-varnish")
        try Self.writeConfig(scratch.path)
        let operatorFile = scratch.sub("operator.txt")
        try Array(Self.operatorHeader.utf8).write(to: operatorFile)
        let server = try ListServerProcess(
            directory: scratch.path, environment: ["LISTSERVER_ADMIN_TOKEN": Self.token], timeout: 120)
        defer { _ = server.terminate() }
        let cdn = try VarnishCDN(originPort: server.port)
        defer { cdn.stop() }
        var first = try await Self.edgeManifest(cdn) { $0.unprotectedSites == ["configured.example"] }

        let key = try MinisignPublicKey(String(contentsOfFile: scratch.sub("state/signing-key.pub"), encoding: .utf8))
        let store = SyncStore(directory: URL(fileURLWithPath: scratch.sub("device")))
        let device = SyncClient(
            manifestURL: URL(string: cdn.baseURL + "/manifest.json")!, store: store,
            trust: try ManifestTrust(trustedKeys: [key]), options: .init(timeout: 20))
        let initial = try await device.sync()
        #expect(initial.outcome == .updated)
        #expect(initial.unprotectedSites == ["configured.example"])
        #expect(try store.unprotectedSites() == ["configured.example"])

        // Tool 1: the operator's own rule, through the normal conversion and publish path.
        try Array((Self.operatorHeader + "||operator-fix.example^\n").utf8).write(to: operatorFile)
        #expect(try await Self.admin(server, "/admin/refresh").0 == 202)
        let withRule = try await Self.edgeManifest(cdn) { $0.lists != first.lists }
        let ruleSync = try await device.sync()
        #expect(ruleSync.recompile.count == 1, "the local rule changes exactly one list: \(ruleSync.recompile)")
        let changed = try #require(try store.syncedLists().first { $0.id == ruleSync.recompile.first })
        #expect(try String(contentsOf: changed.fileURL, encoding: .utf8).contains("operator-fix"))
        #expect(withRule.unprotectedSites == ["configured.example"], "a list publish keeps the sites")
        first = withRule

        // Tool 2: an unprotected site (an IDN host, normalised) publishes a manifest and no list file.
        let listFiles = try PublishedSetForTests.listFiles(scratch.sub("public"))
        let (status, body) = try await Self.admin(server, "/admin/unprotected-sites?add=B%C3%BCcher.example")
        #expect(status == 202, "\(body)")
        let withSite = try await Self.edgeManifest(cdn) {
            $0.unprotectedSites?.contains("xn--bcher-kva.example") == true
        }
        #expect(withSite.lists == first.lists)
        #expect(try PublishedSetForTests.listFiles(scratch.sub("public")) == listFiles, "no list file written")
        let siteSync = try await device.sync()
        #expect(siteSync.recompile.isEmpty, "the device compiles 0 lists: \(siteSync.recompile)")
        #expect(siteSync.downloaded.isEmpty)
        #expect(siteSync.unprotectedSitesChanged)
        #expect(siteSync.unprotectedSites == ["configured.example", "xn--bcher-kva.example"])
        #expect(try store.unprotectedSites() == ["configured.example", "xn--bcher-kva.example"])

        // A typo is refused by name and changes nothing.
        let refused = try await Self.admin(server, "/admin/unprotected-sites?add=shop.example%2Fcart")
        #expect(refused.0 == 400)
        #expect(refused.1.contains(#"\"shop.example/cart\" is not a host name"#))

        // Removing the configured site switches blocking back on there, again without a recompile.
        #expect(try await Self.admin(server, "/admin/unprotected-sites?remove=configured.example").0 == 202)
        _ = try await Self.edgeManifest(cdn) { $0.unprotectedSites == ["xn--bcher-kva.example"] }
        #expect(try store.syncedLists().count == withSite.lists.count)
        let removeSync = try await device.sync()
        #expect(removeSync.recompile.isEmpty)
        #expect(removeSync.unprotectedSites == ["xn--bcher-kva.example"])
    }
}
