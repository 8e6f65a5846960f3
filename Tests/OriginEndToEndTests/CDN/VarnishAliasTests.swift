import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

/// A stable alias through a real Varnish (`scripts/varnish/cdn.vcl`): cached for the manifest's
/// short max-age, revalidated with its ETag (a 304 when the list did not change), the new version
/// once it did, and a retired id's 410 passed through and never cached.
@Suite(.serialized) struct VarnishAliasTests {
    @Test func aliasIsCachedBrieflyRevalidatedAndFollowsNewVersions() async throws {
        let origin = try OriginForTests(manifestMaxAge: 2, staleWhileRevalidate: 0)
        defer { origin.stop() }
        let first = try PublishedSetForTests(lists: [
            (id: "network-00", json: PublishedSetForTests.ruleJSON(tag: "a", count: 300))
        ])
        origin.install(first)
        let cdn = try VarnishCDN(originPort: origin.port)
        defer { cdn.stop() }
        let path = "/lists/network-00.json"
        func fetches() -> [OriginForTests.Request] { origin.requests.filter { $0.path == path } }
        func get() throws -> RawHTTPResponse {
            try RawHTTPResponse.get(port: cdn.port, path: path, headers: ["Accept-Encoding": "gzip"])
        }

        let cold = try get()
        #expect(cold.status == 200)
        #expect(try Gzip.decompress(cold.body, limit: 1 << 24) == first.list("network-00").identity)
        #expect(cold.headers["cache-control"]?.contains("immutable") == false)
        _ = try get()
        #expect(fetches().count == 1, "the second request is an edge hit: \(fetches())")

        // The same list republished: once max-age runs out the edge revalidates and the origin says 304.
        origin.install(first)
        #expect(
            try await eventually(timeout: 30, interval: 0.2) {
                _ = try get()
                return fetches().contains { $0.status == 304 }
            },
            "no conditional revalidation reached the origin: \(fetches())")

        // A new version: served from the edge within max-age of the publish.
        let second = try PublishedSetForTests(lists: [
            (id: "network-00", json: PublishedSetForTests.ruleJSON(tag: "b", count: 300))
        ])
        origin.install(second)
        #expect(
            try await eventually(timeout: 30, interval: 0.2) {
                try Gzip.decompress(try get().body, limit: 1 << 24) == second.list("network-00").identity
            })

        // The id retired (its file still kept): the edge passes the 410 on and asks the origin each time.
        origin.server.install(try second.siteContent.dropping("network-00", keepFiles: true))
        #expect(try await eventually(timeout: 30, interval: 0.2) { try get().status == 410 })
        let gone = fetches().filter { $0.status == 410 }.count
        #expect(try get().status == 410 && get().status == 410)
        #expect(fetches().filter { $0.status == 410 }.count == gone + 2, "a 410 is never served from the edge's cache")
    }
}
