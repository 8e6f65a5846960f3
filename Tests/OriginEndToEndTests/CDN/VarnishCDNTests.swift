import Foundation
import ListSync
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// End to end through a real CDN: 200 simulated devices sync from `HTTPServer` through Varnish
/// (scripts/varnish/cdn.vcl). Checks that immutable hashed files reach the origin once, that
/// manifest revalidations are 304s, that a new publish reaches devices within the manifest
/// max-age, and that Range and gzip responses from the edge carry the right bytes.
@Suite(.serialized) struct VarnishCDNTests {
    static let devices = 200
    /// Short so the test sees revalidation quickly; stale-while-revalidate 0 so an expired
    /// manifest is revalidated before it is served (the freshness bound the test asserts).
    static let manifestMaxAge = 2

    @Test func devicesSyncThroughVarnishAndTheOriginSeesEachFileOnce() async throws {
        let edge = try Edge()
        defer { edge.stop() }
        let cold = try await edge.coldDevicesFetchEachFileThroughTheOriginOnce()
        let warm = try await edge.warmDevicesCostTheOriginManifest304sOnly()
        let update = try await edge.aNewPublishReachesDevicesWithinMaxAge()
        let perThousand = { (requests: Int) in Double(requests) * 1_000 / Double(Self.devices) }
        print(
            """
            varnish: \(Self.devices) devices, \(edge.setA.lists.count) lists; origin requests per 1,000 device syncs: \
            cold \(perThousand(cold.total)) (\(cold.total) total: \(cold.files) files, \(cold.total - cold.files) manifest), \
            warm \(perThousand(warm)) (all manifest 304s), \
            after publish \(perThousand(update.total)) (\(update.files) files)
            """)
    }

    /// `devices` device stores syncing from an origin through a real Varnish, and what the origin saw.
    final class Edge {
        let origin: OriginForTests
        let cdn: VarnishCDN
        let setA: PublishedSetForTests
        let stores: [TemporaryDirectory]
        let session = SyncClient.makeSession(maxConnectionsPerHost: 32)
        let manifestURL: String

        init() throws {
            origin = try OriginForTests(manifestMaxAge: VarnishCDNTests.manifestMaxAge, staleWhileRevalidate: 0)
            setA = try PublishedSetForTests(
                lists: (0..<6).map {
                    (id: "network-0\($0)", json: PublishedSetForTests.ruleJSON(tag: "a\($0)", count: 300))
                })
            origin.install(setA)
            cdn = try VarnishCDN(originPort: origin.port)
            stores = try (0..<VarnishCDNTests.devices).map { try TemporaryDirectory("device-\($0)") }
            manifestURL = cdn.baseURL + "/manifest.json"
        }

        func stop() {
            for store in stores { store.remove() }
            cdn.stop()
            origin.stop()
        }

        /// Every device starts empty; each hashed file reaches the origin exactly once.
        func coldDevicesFetchEachFileThroughTheOriginOnce() async throws -> (total: Int, files: Int) {
            let cold = try await syncDevices(stores, manifestURL: manifestURL, session: session)
            #expect(cold.allSatisfy { $0.outcome == .updated && Set($0.downloaded.map(\.sha256)) == setA.hashes })
            let backend = origin.requests
            let files = backend.filter { $0.path != "/manifest.json" }
            #expect(
                files.map(\.path).sorted() == setA.lists.map { "/" + $0.fileName }.sorted(),
                "each hashed file reaches the origin exactly once")
            #expect(files.allSatisfy { $0.status == 200 })
            #expect(backend.contains { $0.path == "/manifest.json" })
            return (backend.count, files.count)
        }

        /// Once the edge's manifest expires, a request through the edge makes it revalidate at the
        /// origin (waited for, bounded); devices then revalidate with their ETag.
        func warmDevicesCostTheOriginManifest304sOnly() async throws -> Int {
            let before = origin.requests.count
            let revalidated = try await eventually(timeout: Double(VarnishCDNTests.manifestMaxAge) + 10, interval: 0.2)
            {
                _ = try RawHTTPResponse.get(port: cdn.port, path: "/manifest.json")
                return origin.requests.dropFirst(before).contains { $0.path == "/manifest.json" }
            }
            try #require(revalidated, "the edge never went back to the origin for the expired manifest")
            let warm = try await syncDevices(stores, manifestURL: manifestURL, session: session)
            #expect(warm.allSatisfy { $0.outcome == .notModified })
            let backend = Array(origin.requests.dropFirst(before))
            #expect(!backend.isEmpty, "the expired manifest should have been revalidated at the origin")
            #expect(
                backend.allSatisfy { $0.path == "/manifest.json" && $0.status == 304 },
                "warm traffic reaching the origin should be manifest 304s only, got \(backend)")
            return backend.count
        }

        /// One list changes, one is added; devices see it once max-age has passed and download only
        /// what changed, after asking once (through the edge) for the changed list's patch.
        func aNewPublishReachesDevicesWithinMaxAge() async throws -> (total: Int, files: Int) {
            var listsB = setA.lists.map { (id: $0.id, json: $0.identity) }
            listsB[2].json = PublishedSetForTests.ruleJSON(tag: "b2", count: 300)
            listsB.append((id: "recent", json: PublishedSetForTests.ruleJSON(tag: "recent", count: 50)))
            let setB = try PublishedSetForTests(lists: listsB)
            let newHashes = setB.hashes.subtracting(setA.hashes)
            origin.install(setB)
            let propagated = try await eventually(timeout: Double(VarnishCDNTests.manifestMaxAge) + 10, interval: 0.2) {
                try RawHTTPResponse.get(port: cdn.port, path: "/manifest.json").body == setB.manifest
            }
            try #require(propagated, "the edge never served the new manifest within its max-age")
            let before = origin.requests.count
            let updated = try await syncDevices(stores, manifestURL: manifestURL, session: session)
            for report in updated {
                #expect(report.outcome == .updated)
                #expect(Set(report.downloaded.map(\.sha256)) == newHashes)
                #expect(report.recompile == ["network-02", "recent"])
            }
            let backend = Array(origin.requests.dropFirst(before))
            let files = backend.filter { $0.path != "/manifest.json" && !$0.path.hasSuffix(".dcz") }
            #expect(
                files.map(\.path).sorted()
                    == setB.lists.filter { newHashes.contains($0.sha256) }.map { "/" + $0.fileName }.sorted())
            // Devices first ask for the changed list's patch under its derived name. This origin has
            // none (404, max-age=60): the edge caches that answer, so the origin sees the name once.
            let old02 = try #require(setA.lists.first { $0.id == "network-02" }?.sha256)
            let new02 = try #require(setB.lists.first { $0.id == "network-02" }?.sha256)
            #expect(
                backend.filter { $0.path.hasSuffix(".dcz") }.map(\.path) == [
                    "/network-02.\(old02.prefix(12))-\(new02.prefix(12)).dcz"
                ])
            for store in stores.prefix(5) {
                #expect(try store.storedHashes() == setB.hashes)
            }
            return (backend.count, files.count)
        }
    }

    @Test func rangeAndGzipThroughVarnishCarryTheRightBytes() async throws {
        let origin = try OriginForTests(manifestMaxAge: Self.manifestMaxAge, staleWhileRevalidate: 0)
        defer { origin.stop() }
        let set = try PublishedSetForTests(lists: [
            (id: "network-00", json: PublishedSetForTests.ruleJSON(tag: "r", count: 400))
        ])
        origin.install(set)
        let cdn = try VarnishCDN(originPort: origin.port)
        defer { cdn.stop() }
        let list = set.list("network-00")
        let gzip = try #require(list.gzip)
        let path = "/" + list.fileName

        let plain = try RawHTTPResponse.get(port: cdn.port, path: path)
        #expect(plain.status == 200)
        #expect(plain.headers["content-encoding"] == nil)
        #expect(
            sameBytes(plain.body, list.identity),
            "identity body differs: \(plain.body.count) bytes vs \(list.identity.count)")

        let gzipped = try RawHTTPResponse.get(port: cdn.port, path: path, headers: ["Accept-Encoding": "gzip"])
        #expect(gzipped.status == 200)
        #expect(gzipped.headers["content-encoding"] == "gzip")
        #expect(
            sameBytes(gzipped.body, gzip),
            "the edge should pass the origin's deterministic gzip bytes through unchanged")
        #expect(sameBytes(try Gzip.decompress(gzipped.body, limit: 1 << 24), list.identity))

        let range = try RawHTTPResponse.get(port: cdn.port, path: path, headers: ["Range": "bytes=100-1099"])
        #expect(range.status == 206)
        #expect(range.headers["content-range"] == "bytes 100-1099/\(list.identity.count)")
        #expect(sameBytes(range.body, Array(list.identity[100..<1100])))

        let suffix = try RawHTTPResponse.get(port: cdn.port, path: path, headers: ["Range": "bytes=-50"])
        #expect(suffix.status == 206)
        #expect(sameBytes(suffix.body, Array(list.identity.suffix(50))))

        let gzipRange = try RawHTTPResponse.get(
            port: cdn.port, path: path, headers: ["Range": "bytes=0-99", "Accept-Encoding": "gzip"])
        #expect(gzipRange.status == 206)
        #expect(gzipRange.headers["content-encoding"] == "gzip")
        #expect(sameBytes(gzipRange.body, Array(gzip[0..<100])))

        // All of that came from one origin fetch of the file.
        let backend = origin.requests.filter { $0.path == path }
        #expect(backend.count == 1, "the hashed file should be fetched from the origin once, got \(backend)")
    }
}
