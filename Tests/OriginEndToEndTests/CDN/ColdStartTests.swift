import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginServe

/// Before the first set is installed the origin answers `503` + `Retry-After` + `no-store` for the
/// manifest and every list path, so a CDN in front keeps nothing and serves the set the moment it
/// is installed (a cacheable `404` would be served to every device for its max-age).
@Suite(.serialized) struct ColdStartTests {
    @Test func theEdgeStoresNothingBeforeTheFirstSetAndServesItOnceInstalled() throws {
        let origin = try OriginForTests()
        defer { origin.stop() }
        let cdn = try VarnishCDN(originPort: origin.port)
        defer { cdn.stop() }
        let set = try PublishedSetForTests(lists: [
            (id: "network-00", json: PublishedSetForTests.ruleJSON(tag: "cold", count: 50))
        ])
        let listPath = "/" + set.lists[0].fileName

        for path in ["/manifest.json", listPath, "/lists/network-00.json", "/lists/"] {
            for _ in 0..<2 {
                let edge = try RawHTTPResponse.get(port: cdn.port, path: path)
                #expect(edge.status == 503, "\(path) through the edge before the first set")
                #expect(edge.headers["cache-control"] == "no-store")
                #expect(edge.headers["retry-after"] == String(ColdStart.retryAfterSeconds))
            }
            #expect(
                origin.requests.filter { $0.path == path }.count == 2, "the edge stored the cold answer for \(path)")
        }
        // The operator endpoints still answer while cold.
        #expect(try RawHTTPResponse.get(port: origin.port, path: "/healthz").status == 503)
        #expect(try RawHTTPResponse.get(port: origin.port, path: "/status").status == 200)

        origin.install(set)
        let manifest = try RawHTTPResponse.get(port: cdn.port, path: "/manifest.json")
        #expect(manifest.status == 200)
        #expect(manifest.body == set.manifest)
        let list = try RawHTTPResponse.get(port: cdn.port, path: listPath)
        #expect(list.status == 200)
        #expect(list.body == set.lists[0].identity)
        // Warm, a path no set names is an ordinary (cacheable) 404 again.
        #expect(try RawHTTPResponse.get(port: origin.port, path: "/network-00.000000000000.json").status == 404)
    }
}
