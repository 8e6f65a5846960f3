import Foundation
import HTTPServerCore
import TestSupport
import Testing

/// Static resources over real loopback sockets: representations, conditional requests, ranges,
/// HEAD and target decoding (RFC 9110 §8, §12.5.3, §13, §14). The headers an application sets on
/// a resource (`Cache-Control`, `Vary`, extra lines) must reach every answer that carries them.
@Suite struct SocketServingTests {
    @Test func aResourceCarriesItsHeadersAndContentHashETags() throws {
        let core = try CoreServer()
        defer { core.stop() }
        let name = core.site.names[0]
        let identity = try core.request("/\(name)")
        let tag = CoreSite.tag(core.site.identity(name))
        #expect(identity.status == 200)
        #expect(identity.header("Server") == "core-test")
        #expect(identity.header("Cache-Control") == CoreSite.immutable)
        #expect(identity.header("ETag") == "\"\(tag)\"")
        #expect(identity.header("Content-Type") == "application/json")
        #expect(identity.header("Vary") == CoreSite.vary)
        #expect(identity.header("Use-As-Dictionary") == "match=\"/list-*.json\"")
        #expect(identity.header("Accept-Ranges") == "bytes")
        #expect(identity.header("Last-Modified") == CoreSite.lastModified)
        #expect(identity.header("Content-Length") == String(core.site.identity(name).count))
        #expect(identity.header("Content-Encoding") == nil)
        #expect(identity.header("Date") != nil)
        #expect(identity.body == core.site.identity(name))

        let encoded = try core.request("/\(name)", headers: ["Accept-Encoding": "gzip"])
        #expect(encoded.status == 200)
        #expect(encoded.header("Content-Encoding") == "gzip")
        #expect(encoded.header("ETag") == "\"\(tag)-gz\"")
        #expect(encoded.header("Vary") == CoreSite.vary)
        #expect(encoded.header("Use-As-Dictionary") == "match=\"/list-*.json\"")
        #expect(encoded.header("Content-Length") == String(core.site.encoded(name).count))
        #expect(encoded.body == core.site.encoded(name))
    }

    /// Every way of asking yields one of the two representations, byte for byte, and the
    /// Content-Encoding says which.
    @Test func everyAcceptEncodingGetsOneWholeRepresentation() throws {
        let core = try CoreServer()
        defer { core.stop() }
        for name in core.site.names + ["manifest.json"] {
            for acceptEncoding in [
                nil, "gzip", "x-gzip", "*", "gzip;q=0", "identity", "gzip;q=0.5, identity;q=0.4", "deflate", "",
            ] {
                let headers = acceptEncoding.map { ["Accept-Encoding": $0] } ?? [:]
                let response = try core.request("/\(name)", headers: headers)
                #expect(response.status == 200)
                let expected =
                    response.header("Content-Encoding") == "gzip" ? core.site.encoded(name) : core.site.identity(name)
                #expect(response.body == expected, "Accept-Encoding \(acceptEncoding ?? "absent") on \(name)")
            }
        }
    }

    @Test func acceptEncodingQValuesChooseTheRepresentation() throws {
        let core = try CoreServer()
        defer { core.stop() }
        let name = "/" + core.site.names[0]
        let cases: [(String?, String?)] = [
            (nil, nil), ("gzip", "gzip"), ("x-gzip", "gzip"), ("GZIP", "gzip"), ("*", "gzip"), ("gzip;q=0", nil),
            ("gzip; q=0.000", nil), ("*;q=0, identity", nil), ("identity;q=0, gzip;q=0.1", "gzip"),
            ("gzip;q=0.5, identity;q=0.8", nil), ("gzip;q=0.8, identity;q=0.5", "gzip"), ("br, deflate", nil),
            ("*;q=0.1, gzip;q=0", nil), ("", nil), ("gzip;q=1.0", "gzip"),
        ]
        for (acceptEncoding, expected) in cases {
            let headers = acceptEncoding.map { ["Accept-Encoding": $0] } ?? [:]
            let response = try core.request(name, headers: headers)
            #expect(response.status == 200, "\(acceptEncoding ?? "absent")")
            #expect(response.header("Content-Encoding") == expected, "Accept-Encoding: \(acceptEncoding ?? "absent")")
        }
    }

    /// Identity refused and gzip not acceptable: 406 (documented choice in ContentNegotiation).
    @Test func refusingEveryCodingIs406() throws {
        let core = try CoreServer()
        defer { core.stop() }
        for value in ["identity;q=0", "*;q=0", "br, identity;q=0", "gzip;q=0, identity;q=0"] {
            let response = try core.request("/manifest.json", headers: ["Accept-Encoding": value])
            #expect(response.status == 406, "\(value)")
            #expect(response.header("Vary") == "Accept-Encoding")
        }
    }

    @Test func ifNoneMatchAnswers304WithTheSameCachingHeaders() throws {
        let core = try CoreServer()
        defer { core.stop() }
        for (target, acceptEncoding) in [
            ("/manifest.json", "gzip"), ("/manifest.json", "identity"), ("/" + core.site.names[1], "gzip"),
        ] {
            let full = try core.request(target, headers: ["Accept-Encoding": acceptEncoding])
            let etag = try #require(full.header("ETag"))
            let weak = "W/" + etag
            for condition in [etag, weak, "\"nope\", \(etag)", "*", "\"a\",\(weak)"] {
                let response = try core.request(
                    target, headers: ["Accept-Encoding": acceptEncoding, "If-None-Match": condition])
                #expect(response.status == 304, "If-None-Match: \(condition)")
                #expect(response.body.isEmpty)
                #expect(response.header("ETag") == etag)
                #expect(response.header("Cache-Control") == full.header("Cache-Control"))
                #expect(response.header("Vary") == (target == "/manifest.json" ? "Accept-Encoding" : CoreSite.vary))
                #expect(response.header("Content-Length") == nil)
            }
            let miss = try core.request(
                target, headers: ["Accept-Encoding": acceptEncoding, "If-None-Match": "\"0000\""])
            #expect(miss.status == 200)
        }
        // The identity tag does not validate the encoded representation.
        let identityTag = try #require(try core.request("/manifest.json").header("ETag"))
        let crossed = try core.request(
            "/manifest.json", headers: ["Accept-Encoding": "gzip", "If-None-Match": identityTag])
        #expect(crossed.status == 200)
    }

    @Test func ifModifiedSinceAndItsPrecedence() throws {
        let core = try CoreServer()
        defer { core.stop() }
        let lastModified = CoreSite.lastModified
        #expect(try core.request("/manifest.json", headers: ["If-Modified-Since": lastModified]).status == 304)
        #expect(
            try core.request("/manifest.json", headers: ["If-Modified-Since": "Tue, 20 Oct 2020 10:00:00 GMT"]).status
                == 304)
        #expect(
            try core.request("/manifest.json", headers: ["If-Modified-Since": "Sun, 18 Oct 2020 10:00:00 GMT"]).status
                == 200)
        // Obsolete formats a recipient must accept (RFC 9110 §5.6.7).
        #expect(
            try core.request("/manifest.json", headers: ["If-Modified-Since": "Monday, 19-Oct-20 10:00:00 GMT"]).status
                == 304)
        #expect(
            try core.request("/manifest.json", headers: ["If-Modified-Since": "Mon Oct 19 10:00:00 2020"]).status == 304
        )
        #expect(try core.request("/manifest.json", headers: ["If-Modified-Since": "not a date"]).status == 200)
        // If-None-Match wins over If-Modified-Since (RFC 9110 §13.1.3).
        let mismatch = try core.request(
            "/manifest.json", headers: ["If-None-Match": "\"other\"", "If-Modified-Since": lastModified])
        #expect(mismatch.status == 200)
    }

    @Test func ifMatchAndIfUnmodifiedSinceFailWith412() throws {
        let core = try CoreServer()
        defer { core.stop() }
        let etag = try #require(try core.request("/manifest.json").header("ETag"))
        #expect(try core.request("/manifest.json", headers: ["If-Match": "\"other\""]).status == 412)
        #expect(try core.request("/manifest.json", headers: ["If-Match": "W/\(etag)"]).status == 412)
        #expect(try core.request("/manifest.json", headers: ["If-Match": etag]).status == 200)
        #expect(try core.request("/manifest.json", headers: ["If-Match": "*"]).status == 200)
        #expect(
            try core.request("/manifest.json", headers: ["If-Unmodified-Since": "Sun, 18 Oct 2020 10:00:00 GMT"]).status
                == 412)
        #expect(
            try core.request("/manifest.json", headers: ["If-Unmodified-Since": CoreSite.lastModified]).status == 200)
    }

    @Test func singleRangesAre206OnTheIdentityRepresentation() throws {
        let core = try CoreServer()
        defer { core.stop() }
        let name = core.site.names[0]
        let body = core.site.identity(name)
        let length = body.count
        let cases: [(String, Range<Int>)] = [
            ("bytes=0-99", 0..<100), ("bytes=100-", 100..<length), ("bytes=-50", length - 50..<length),
            ("bytes=10-\(length + 500)", 10..<length), ("bytes=0-0", 0..<1),
        ]
        for (range, expected) in cases {
            // A Range request gets identity even when the encoded form is acceptable (documented policy).
            let response = try core.request("/\(name)", headers: ["Range": range, "Accept-Encoding": "gzip"])
            #expect(response.status == 206, "\(range)")
            #expect(
                response.header("Content-Range") == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/\(length)")
            #expect(response.header("Content-Encoding") == nil)
            #expect(response.header("Content-Length") == String(expected.count))
            #expect(response.header("Vary") == CoreSite.vary)
            #expect(response.header("Use-As-Dictionary") == "match=\"/list-*.json\"")
            #expect(response.body == Array(body[expected]))
        }
    }

    @Test func unsatisfiableMultipleAndIgnoredRanges() throws {
        let core = try CoreServer()
        defer { core.stop() }
        let name = "/" + core.site.names[0]
        let length = core.site.identity(core.site.names[0]).count
        for range in ["bytes=\(length)-", "bytes=\(length + 10)-\(length + 20)", "bytes=-0"] {
            let response = try core.request(name, headers: ["Range": range])
            #expect(response.status == 416, "\(range)")
            #expect(response.header("Content-Range") == "bytes */\(length)")
        }
        for range in ["bytes=0-1,5-9", "items=0-5", "bytes=5-1", "bytes=abc"] {
            let response = try core.request(name, headers: ["Range": range])
            #expect(response.status == 200, "\(range)")
            #expect(response.body.count == length)
        }
        // Range on HEAD is ignored.
        #expect(try core.request(name, method: "HEAD", headers: ["Range": "bytes=0-5"]).status == 200)
    }

    @Test func ifRangeHonoursTheCurrentValidatorOnly() throws {
        let core = try CoreServer()
        defer { core.stop() }
        let name = "/" + core.site.names[0]
        let etag = try #require(try core.request(name).header("ETag"))
        #expect(try core.request(name, headers: ["Range": "bytes=0-9", "If-Range": etag]).status == 206)
        #expect(try core.request(name, headers: ["Range": "bytes=0-9", "If-Range": "\"stale\""]).status == 200)
        #expect(try core.request(name, headers: ["Range": "bytes=0-9", "If-Range": "W/\(etag)"]).status == 200)
        #expect(
            try core.request(name, headers: ["Range": "bytes=0-9", "If-Range": CoreSite.lastModified]).status == 206)
        #expect(
            try core.request(name, headers: ["Range": "bytes=0-9", "If-Range": "Tue, 20 Oct 2020 10:00:00 GMT"]).status
                == 200)
    }

    @Test func headIsGetWithoutBody() throws {
        let core = try CoreServer()
        defer { core.stop() }
        let client = try core.client()
        defer { client.close() }
        for target in ["/manifest.json", "/" + core.site.names[0], "/missing.json"] {
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

    /// Targets are percent-decoded and matched exactly; nothing that escapes or bends a name finds a resource.
    @Test func onlyExactNamesAreServed() throws {
        let core = try CoreServer()
        defer { core.stop() }
        let name = core.site.names[0]
        let encodedName = name.replacingOccurrences(of: ".", with: "%2e").replacingOccurrences(of: "s", with: "%73")
        #expect(try core.request("/\(encodedName)").status == 200)
        #expect(try core.request("http://cdn.example/\(name)?x=1").status == 200)
        for target in [
            "/", "/public", "/..", "/../manifest.json", "/%2e%2e/manifest.json", "/%2e%2e%2fmanifest.json",
            "/./manifest.json",
            "//manifest.json", "/manifest.json/", "/.git/config", "/.env", "/%00manifest.json", "/manifest.json%00",
            "/\(name)/..", "/etc/passwd", "/..%2f..%2fetc%2fpasswd", "/%2fetc%2fpasswd", "/MANIFEST.JSON",
            "/manifest.json.gz",
        ] {
            let response = try core.request(target)
            #expect(response.status == 404, "\(target)")
            #expect(response.header("Cache-Control") == "public, max-age=60")
            #expect(response.header("Content-Type") == "application/json")
        }
        #expect(try core.request("/%zz").status == 400)
        #expect(try core.request("/%4").status == 400)
    }
}
