import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

/// The headers the origin gives what it publishes: hashed lists are immutable RFC 9842 dictionaries,
/// the manifest is cached as configured, and only GET and HEAD are allowed. The HTTP mechanics under
/// them (negotiation, conditional requests, ranges, HEAD, target decoding) are HTTPServerCoreTests'.
@Suite struct HTTPServingTests {
    @Test func hashedListHasImmutableCachingAndContentHashETags() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let name = harness.fileNames[0]
        let entry = harness.content.files[name]!
        let identity = try harness.request("/\(name)")
        #expect(identity.status == 200)
        #expect(identity.header("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(identity.header("ETag") == "\"\(entry.sha256.prefix(16))\"")
        #expect(identity.header("Content-Type") == "application/json")
        // A list URL is an RFC 9842 dictionary for its own later versions, and negotiates dcz.
        #expect(identity.header("Vary") == "Accept-Encoding, Available-Dictionary")
        #expect(identity.header("Use-As-Dictionary") == "match=\"/network-00.*.json\"")
        #expect(identity.header("Accept-Ranges") == "bytes")
        #expect(identity.header("Last-Modified") == "Mon, 19 Oct 2020 10:00:00 GMT")
        #expect(identity.header("Content-Length") == String(entry.identity.count))
        #expect(identity.header("Content-Encoding") == nil)
        #expect(identity.header("Date") != nil)
        #expect(identity.body == entry.identity)

        let gzip = try harness.request("/\(name)", headers: ["Accept-Encoding": "gzip"])
        #expect(gzip.status == 200)
        #expect(gzip.header("Content-Encoding") == "gzip")
        #expect(gzip.header("ETag") == "\"\(entry.sha256.prefix(16))-gz\"")
        #expect(gzip.header("Vary") == "Accept-Encoding, Available-Dictionary")
        #expect(gzip.header("Use-As-Dictionary") == "match=\"/network-00.*.json\"")
        #expect(gzip.header("Content-Length") == String(entry.gzip!.count))
        #expect(try Gzip.decompress(gzip.body, limit: 1 << 24) == entry.identity)
    }

    @Test func manifestCachingFollowsConfiguration() throws {
        let harness = try ServerHarness { http in
            http.manifestMaxAgeSeconds = 120
            http.manifestStaleWhileRevalidateSeconds = 30
            http.manifestStaleIfErrorSeconds = 3600
        }
        defer { harness.stop() }
        let manifest = harness.content.manifest!
        let response = try harness.request("/manifest.json", headers: ["Accept-Encoding": "br, gzip"])
        #expect(response.status == 200)
        #expect(
            response.header("Cache-Control") == "public, max-age=120, stale-while-revalidate=30, stale-if-error=3600")
        #expect(response.header("ETag") == "\"\(manifest.sha256.prefix(16))-gz\"")
        #expect(response.header("Last-Modified") == "Mon, 19 Oct 2020 10:00:00 GMT")
        #expect(try Gzip.decompress(response.body, limit: 1 << 20) == manifest.identity)
        let query = try harness.request("/manifest.json?cachebust=1")
        #expect(query.status == 200)
        #expect(query.body == manifest.identity)
    }

    /// The origin allows GET and HEAD on what it publishes and says so (RFC 9110 §15.5.6).
    @Test func otherMethodsAre405WithAllow() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.close() }
        for method in ["DELETE", "PUT", "OPTIONS", "PATCH", "POST"] {
            for target in ["/manifest.json", "/" + harness.fileNames[0], "/healthz"] {
                try client.send("\(method) \(target) HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
                let response = try client.readResponse()
                #expect(response.status == 405, "\(method) \(target)")
                #expect(response.header("Allow") == "GET, HEAD")
            }
        }
    }
}
