import Foundation
import Testing
@testable import ListOrigin

/// Hashed lists and the manifest over real loopback sockets: headers, encodings, conditional
/// requests and ranges (RFC 9110 §8, §12.5.3, §13, §14).
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
        #expect(response.header("Cache-Control") == "public, max-age=120, stale-while-revalidate=30, stale-if-error=3600")
        #expect(response.header("ETag") == "\"\(manifest.sha256.prefix(16))-gz\"")
        #expect(response.header("Last-Modified") == "Mon, 19 Oct 2020 10:00:00 GMT")
        #expect(try Gzip.decompress(response.body, limit: 1 << 20) == manifest.identity)
        let query = try harness.request("/manifest.json?cachebust=1")
        #expect(query.status == 200)
        #expect(query.body == manifest.identity)
    }

    /// Every way of asking yields the same decoded bytes.
    @Test func everyEncodingDecodesToTheSameBytes() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        for name in harness.fileNames + ["manifest.json"] {
            let expected = name == "manifest.json" ? harness.content.manifest!.identity : harness.content.files[name]!.identity
            for acceptEncoding in [nil, "gzip", "x-gzip", "*", "gzip;q=0", "identity", "gzip;q=0.5, identity;q=0.4", "deflate", ""] {
                let headers = acceptEncoding.map { ["Accept-Encoding": $0] } ?? [:]
                let response = try harness.request("/\(name)", headers: headers)
                #expect(response.status == 200)
                let decoded = response.header("Content-Encoding") == "gzip" ? try Gzip.decompress(response.body, limit: 1 << 24) : response.body
                #expect(decoded == expected, "Accept-Encoding \(acceptEncoding ?? "absent") on \(name)")
            }
        }
    }

    @Test func acceptEncodingQValuesChooseTheRepresentation() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let name = "/" + harness.fileNames[0]
        let cases: [(String?, String?)] = [
            (nil, nil), ("gzip", "gzip"), ("x-gzip", "gzip"), ("GZIP", "gzip"), ("*", "gzip"), ("gzip;q=0", nil),
            ("gzip; q=0.000", nil), ("*;q=0, identity", nil), ("identity;q=0, gzip;q=0.1", "gzip"),
            ("gzip;q=0.5, identity;q=0.8", nil), ("gzip;q=0.8, identity;q=0.5", "gzip"), ("br, deflate", nil),
            ("*;q=0.1, gzip;q=0", nil), ("", nil), ("gzip;q=1.0", "gzip"),
        ]
        for (acceptEncoding, expected) in cases {
            let headers = acceptEncoding.map { ["Accept-Encoding": $0] } ?? [:]
            let response = try harness.request(name, headers: headers)
            #expect(response.status == 200, "\(acceptEncoding ?? "absent")")
            #expect(response.header("Content-Encoding") == expected, "Accept-Encoding: \(acceptEncoding ?? "absent")")
        }
    }

    /// Identity refused and gzip not acceptable: 406 (documented choice in ContentNegotiation).
    @Test func refusingEveryCodingIs406() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        for value in ["identity;q=0", "*;q=0", "br, identity;q=0", "gzip;q=0, identity;q=0"] {
            let response = try harness.request("/manifest.json", headers: ["Accept-Encoding": value])
            #expect(response.status == 406, "\(value)")
            #expect(response.header("Vary") == "Accept-Encoding")
        }
    }

    @Test func ifNoneMatchAnswers304WithTheSameCachingHeaders() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        for (target, acceptEncoding) in [("/manifest.json", "gzip"), ("/manifest.json", "identity"), ("/" + harness.fileNames[1], "gzip")] {
            let full = try harness.request(target, headers: ["Accept-Encoding": acceptEncoding])
            let etag = try #require(full.header("ETag"))
            let weak = "W/" + etag
            for condition in [etag, weak, "\"nope\", \(etag)", "*", "\"a\",\(weak)"] {
                let response = try harness.request(target, headers: ["Accept-Encoding": acceptEncoding, "If-None-Match": condition])
                #expect(response.status == 304, "If-None-Match: \(condition)")
                #expect(response.body.isEmpty)
                #expect(response.header("ETag") == etag)
                #expect(response.header("Cache-Control") == full.header("Cache-Control"))
                #expect(response.header("Vary") == (target == "/manifest.json" ? "Accept-Encoding" : "Accept-Encoding, Available-Dictionary"))
                #expect(response.header("Content-Length") == nil)
            }
            let miss = try harness.request(target, headers: ["Accept-Encoding": acceptEncoding, "If-None-Match": "\"0000\""])
            #expect(miss.status == 200)
        }
        // The identity tag does not validate the gzip representation.
        let identityTag = try #require(try harness.request("/manifest.json").header("ETag"))
        let crossed = try harness.request("/manifest.json", headers: ["Accept-Encoding": "gzip", "If-None-Match": identityTag])
        #expect(crossed.status == 200)
    }

    @Test func ifModifiedSinceAndItsPrecedence() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let lastModified = "Mon, 19 Oct 2020 10:00:00 GMT"
        #expect(try harness.request("/manifest.json", headers: ["If-Modified-Since": lastModified]).status == 304)
        #expect(try harness.request("/manifest.json", headers: ["If-Modified-Since": "Tue, 20 Oct 2020 10:00:00 GMT"]).status == 304)
        #expect(try harness.request("/manifest.json", headers: ["If-Modified-Since": "Sun, 18 Oct 2020 10:00:00 GMT"]).status == 200)
        // Obsolete formats a recipient must accept (RFC 9110 §5.6.7).
        #expect(try harness.request("/manifest.json", headers: ["If-Modified-Since": "Monday, 19-Oct-20 10:00:00 GMT"]).status == 304)
        #expect(try harness.request("/manifest.json", headers: ["If-Modified-Since": "Mon Oct 19 10:00:00 2020"]).status == 304)
        #expect(try harness.request("/manifest.json", headers: ["If-Modified-Since": "not a date"]).status == 200)
        // If-None-Match wins over If-Modified-Since (RFC 9110 §13.1.3).
        let mismatch = try harness.request("/manifest.json", headers: ["If-None-Match": "\"other\"", "If-Modified-Since": lastModified])
        #expect(mismatch.status == 200)
    }

    @Test func ifMatchAndIfUnmodifiedSinceFailWith412() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let etag = try #require(try harness.request("/manifest.json").header("ETag"))
        #expect(try harness.request("/manifest.json", headers: ["If-Match": "\"other\""]).status == 412)
        #expect(try harness.request("/manifest.json", headers: ["If-Match": "W/\(etag)"]).status == 412)
        #expect(try harness.request("/manifest.json", headers: ["If-Match": etag]).status == 200)
        #expect(try harness.request("/manifest.json", headers: ["If-Match": "*"]).status == 200)
        #expect(try harness.request("/manifest.json", headers: ["If-Unmodified-Since": "Sun, 18 Oct 2020 10:00:00 GMT"]).status == 412)
        #expect(try harness.request("/manifest.json", headers: ["If-Unmodified-Since": "Mon, 19 Oct 2020 10:00:00 GMT"]).status == 200)
    }

    @Test func singleRangesAre206OnTheIdentityRepresentation() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let name = harness.fileNames[0]
        let body = harness.content.files[name]!.identity
        let length = body.count
        let cases: [(String, Range<Int>)] = [("bytes=0-99", 0..<100), ("bytes=100-", 100..<length), ("bytes=-50", length - 50..<length),
                                             ("bytes=10-\(length + 500)", 10..<length), ("bytes=0-0", 0..<1)]
        for (range, expected) in cases {
            // A Range request gets identity even when gzip is acceptable (documented policy).
            let response = try harness.request("/\(name)", headers: ["Range": range, "Accept-Encoding": "gzip"])
            #expect(response.status == 206, "\(range)")
            #expect(response.header("Content-Range") == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/\(length)")
            #expect(response.header("Content-Encoding") == nil)
            #expect(response.header("Content-Length") == String(expected.count))
            #expect(response.header("Vary") == "Accept-Encoding, Available-Dictionary")
            #expect(response.header("Use-As-Dictionary") == "match=\"/network-00.*.json\"")
            #expect(response.body == Array(body[expected]))
        }
    }

    @Test func unsatisfiableMultipleAndIgnoredRanges() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let name = "/" + harness.fileNames[0]
        let length = harness.content.files[harness.fileNames[0]]!.identity.count
        for range in ["bytes=\(length)-", "bytes=\(length + 10)-\(length + 20)", "bytes=-0"] {
            let response = try harness.request(name, headers: ["Range": range])
            #expect(response.status == 416, "\(range)")
            #expect(response.header("Content-Range") == "bytes */\(length)")
        }
        for range in ["bytes=0-1,5-9", "items=0-5", "bytes=5-1", "bytes=abc"] {
            let response = try harness.request(name, headers: ["Range": range])
            #expect(response.status == 200, "\(range)")
            #expect(response.body.count == length)
        }
        // Range on HEAD is ignored.
        #expect(try harness.request(name, method: "HEAD", headers: ["Range": "bytes=0-5"]).status == 200)
    }

    @Test func ifRangeHonoursTheCurrentValidatorOnly() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let name = "/" + harness.fileNames[0]
        let etag = try #require(try harness.request(name).header("ETag"))
        #expect(try harness.request(name, headers: ["Range": "bytes=0-9", "If-Range": etag]).status == 206)
        #expect(try harness.request(name, headers: ["Range": "bytes=0-9", "If-Range": "\"stale\""]).status == 200)
        #expect(try harness.request(name, headers: ["Range": "bytes=0-9", "If-Range": "W/\(etag)"]).status == 200)
        #expect(try harness.request(name, headers: ["Range": "bytes=0-9", "If-Range": "Mon, 19 Oct 2020 10:00:00 GMT"]).status == 206)
        #expect(try harness.request(name, headers: ["Range": "bytes=0-9", "If-Range": "Tue, 20 Oct 2020 10:00:00 GMT"]).status == 200)
    }

    @Test func headIsGetWithoutBody() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.close() }
        for target in ["/manifest.json", "/" + harness.fileNames[0], "/missing.json"] {
            try client.send("GET \(target) HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
            let get = try client.readResponse()
            try client.send("HEAD \(target) HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
            let head = try client.readResponse(method: "HEAD")
            #expect(head.status == get.status)
            #expect(head.header("Content-Length") == get.header("Content-Length"))
            #expect(head.header("ETag") == get.header("ETag"))
            #expect(head.header("Content-Encoding") == get.header("Content-Encoding"))
        }
        // Nothing after the HEAD response head: the next response starts cleanly.
        try client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().status == 200)
    }

    @Test func onlyExactNamesAreServed() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let name = harness.fileNames[0]
        let encodedName = name.replacingOccurrences(of: ".", with: "%2e").replacingOccurrences(of: "n", with: "%6E")
        #expect(try harness.request("/\(encodedName)").status == 200)
        #expect(try harness.request("http://cdn.example/\(name)?x=1").status == 200)
        for target in ["/", "/public", "/..", "/../manifest.json", "/%2e%2e/manifest.json", "/%2e%2e%2fmanifest.json", "/./manifest.json",
                       "//manifest.json", "/manifest.json/", "/.git/config", "/.env", "/%00manifest.json", "/manifest.json%00",
                       "/\(name)/..", "/etc/passwd", "/..%2f..%2fetc%2fpasswd", "/%2fetc%2fpasswd", "/MANIFEST.JSON", "/manifest.json.gz"] {
            let response = try harness.request(target)
            #expect(response.status == 404, "\(target)")
            #expect(response.header("Cache-Control") == "public, max-age=60")
            #expect(response.header("Content-Type") == "application/json")
        }
        #expect(try harness.request("/%zz").status == 400)
        #expect(try harness.request("/%4").status == 400)
    }
}
