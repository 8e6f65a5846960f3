import DictionaryPatch
import DictionaryPatchOrigin
import Foundation
import HTTPServerCore
import ListSync
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

/// dcz patches through a real CDN (Varnish with scripts/varnish/cdn.vcl, loopback, the real server):
/// patch files are cached like list files, and RFC 9842 negotiation on list URLs survives Varnish's
/// Accept-Encoding rewriting while every client, with a dictionary or without, gets exact bytes.
@Suite(.serialized) struct VarnishDictionaryTests {
    static let devices = 40

    /// Two published versions of `net` (so one patch leads from the first to the second).
    struct TwoDays {
        let first: SiteContent
        let second: SiteContent
        let patch: Manifest.Patch
        let old: SiteContent.Entry
        let current: SiteContent.Entry

        init() throws {
            let dir = ScratchDirectory("varnish-dcz")
            var origin = PublishingOrigin(PublishingOrigin.publisher(dir.path))
            first = try origin.publish(FixtureLists.patchVersion(1)).published.content
            let outcome = try origin.publish(FixtureLists.patchVersion(2))
            second = outcome.published.content
            let entry = try FixtureLists.manifestEntry(outcome, "net")
            let patch = try #require(entry.patches?.first)
            let files = second.files
            self.patch = patch
            old = try #require(files.values.first { $0.sha256 == patch.from })
            current = try #require(files[entry.file])
        }

        var offer: String { AvailableDictionaryField.fieldValue(sha256: SHA256Digest.of(Data(old.identity))) }
    }

    @Test func devicesOnAPatchDayPullEachPatchFromTheOriginOnce() async throws {
        let days = try TwoDays()
        let origin = try OriginForTests(manifestMaxAge: 1, staleWhileRevalidate: 0)
        defer { origin.stop() }
        origin.server.install(days.first)
        let cdn = try VarnishCDN(originPort: origin.port)
        defer { cdn.stop() }
        let stores = try (0..<Self.devices).map { try TemporaryDirectory("dcz-device-\($0)") }
        defer { for store in stores { store.remove() } }
        let session = SyncClient.makeSession(maxConnectionsPerHost: 16)
        let manifestURL = cdn.baseURL + "/manifest.json"
        _ = try await syncDevices(stores, manifestURL: manifestURL, session: session)

        origin.server.install(days.second)
        let propagated = try await eventually(timeout: 12, interval: 0.2) {
            try RawHTTPResponse.get(port: cdn.port, path: "/manifest.json").body == days.second.manifest!.identity
        }
        try #require(propagated, "the edge never served the second day's manifest")
        let before = origin.requests.count
        let reports = try await syncDevices(stores, manifestURL: manifestURL, session: session)
        for report in reports {
            let net = try #require(report.downloaded.first { $0.id == "net" }, "\(report.summary)")
            #expect(net.patch == days.patch.file && net.patchFallback == nil, "\(report.summary)")
            #expect(net.sha256 == days.current.sha256)
        }
        let patchDay = Array(origin.requests.dropFirst(before))
        let patchPulls = patchDay.filter { $0.path == "/" + days.patch.file }
        #expect(
            patchPulls.count == 1 && patchPulls.allSatisfy { $0.status == 200 },
            "the patch file reaches the origin once, then the edge serves it: \(patchDay)")
        #expect(!patchDay.contains { $0.path == "/" + days.current.name }, "no device needed the whole list")
        #expect(patchDay.allSatisfy { $0.path == "/manifest.json" || $0.path == "/" + days.patch.file }, "\(patchDay)")
    }

    @Test func rfc9842ThroughVarnishGivesExactBytesWithAndWithoutADictionary() throws {
        let days = try TwoDays()
        let origin = try OriginForTests()
        defer { origin.stop() }
        origin.server.install(days.second)
        let cdn = try VarnishCDN(originPort: origin.port)
        defer { cdn.stop() }
        let path = "/" + days.current.name
        let patchBytes = try #require(days.second.files[days.patch.file]?.identity)
        let gzip = try #require(days.current.gzip)
        let withDictionary = ["Accept-Encoding": "gzip, deflate, br, zstd, dcz", "Available-Dictionary": days.offer]

        // Twice each, interleaved, so every answer after the first of its kind comes from the edge's cache.
        for round in 0..<2 {
            let dcz = try RawHTTPResponse.get(port: cdn.port, path: path, headers: withDictionary)
            #expect(dcz.status == 200)
            #expect(dcz.headers["content-encoding"] == "dcz", "round \(round): the edge must let dcz through")
            #expect(dcz.headers["vary"] == "Accept-Encoding, Available-Dictionary")
            #expect(sameBytes(dcz.body, patchBytes), "the precomputed patch, byte for byte")
            let decoded = try PatchDecoder().apply(
                Data(dcz.body), to: Data(days.old.identity), expectedBytes: days.current.identity.count)
            #expect(SHA256Digest.hex(SHA256Digest.of(decoded)) == days.current.sha256)

            let plain = try RawHTTPResponse.get(port: cdn.port, path: path)
            #expect(plain.status == 200 && plain.headers["content-encoding"] == nil)
            #expect(sameBytes(plain.body, days.current.identity), "a client without gzip or a dictionary gets identity")

            let gzipped = try RawHTTPResponse.get(port: cdn.port, path: path, headers: ["Accept-Encoding": "gzip"])
            #expect(gzipped.headers["content-encoding"] == "gzip")
            #expect(sameBytes(gzipped.body, gzip), "the origin's deterministic gzip bytes")

            // A dictionary without dcz, dcz refused, or an unknown dictionary: gzip.
            for headers in [
                ["Accept-Encoding": "gzip", "Available-Dictionary": days.offer],
                ["Accept-Encoding": "gzip, dcz;q=0", "Available-Dictionary": days.offer],
                [
                    "Accept-Encoding": "gzip, dcz",
                    "Available-Dictionary": AvailableDictionaryField.fieldValue(
                        sha256: [UInt8](repeating: 1, count: 32)),
                ],
            ] {
                let response = try RawHTTPResponse.get(port: cdn.port, path: path, headers: headers)
                #expect(response.headers["content-encoding"] == "gzip", "\(headers)")
                #expect(sameBytes(response.body, gzip), "\(headers)")
            }
            // A Range request never gets a slice of a dcz body: the edge drops the offer and answers
            // the range from the object it has for the client's Accept-Encoding (here gzip).
            var ranged = withDictionary
            ranged["Range"] = "bytes=0-99"
            let range = try RawHTTPResponse.get(port: cdn.port, path: path, headers: ranged)
            #expect(range.status == 206 && range.headers["content-encoding"] == "gzip")
            #expect(sameBytes(range.body, Array(gzip[0..<100])))
        }
        // The origin saw the list once per distinct variant: dcz for this dictionary, gzip, and
        // gzip for the unknown dictionary (its own Vary key); nothing on the second round.
        let fetches = origin.requests.filter { $0.path == path }
        #expect(fetches.count == 3, "\(fetches)")
    }
}
