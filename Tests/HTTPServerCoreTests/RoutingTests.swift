import Foundation
import TestSupport
import Testing

@testable import HTTPServerCore

/// How a request target finds what it names without per-request allocation: the plain-name fast
/// path, the byte-keyed resource table, inline list headers, and `OPTIONS *`.
@Suite struct RoutingTests {
    private func plainName(_ target: String) -> String? {
        let bytes = Array(target.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            RequestTarget.plainName(buffer, target: 0..<buffer.count).map { String(decoding: bytes[$0], as: UTF8.self) }
        }
    }

    @Test func plainTargetsNameTheirOwnBytes() {
        #expect(plainName("/manifest.json") == "manifest.json")
        #expect(plainName("/admin/refresh") == "admin/refresh")
        // Anything that needs decoding, dropping a query or a 404 decision goes the slow way.
        #expect(plainName("/manifest%2Ejson") == nil)
        #expect(plainName("/manifest.json?x=1") == nil)
        #expect(plainName("/manifest.json#top") == nil)
        #expect(plainName("/.hidden") == nil)
        #expect(plainName("/") == nil)
        #expect(plainName("http://cdn.example/manifest.json") == nil)
        #expect(plainName("*") == nil)
    }

    @Test func resourceTableFindsExactNamesOnly() throws {
        let site = CoreSite().staticSite
        // Many more names than the sample, to exercise probing past collisions.
        var entries = site.resources
        let template = site.resources.values.first!
        for index in 0..<500 { entries[Array("list-\(index).0123456789ab.json".utf8)] = template }
        let table = ResourceTable(entries)
        for (name, resource) in entries {
            let found = name.withUnsafeBufferPointer { table.lookup($0) }
            #expect(found === resource, "\(String(decoding: name, as: UTF8.self))")
        }
        let someName = site.resources.keys.first!
        for miss in [Array(someName.dropLast()), someName + [0x78], [], Array("list-500.0123456789ab.json".utf8)] {
            #expect(
                miss.withUnsafeBufferPointer { table.lookup($0) } == nil, "\(String(decoding: miss, as: UTF8.self))")
        }
    }

    @Test func listHeadersKeepEveryLineInOrder() throws {
        let parser = HTTPRequestParser(maxHeaderBytes: 16_384, maxURIBytes: 2_048)
        let text =
            "GET / HTTP/1.1\r\nHost: x\r\nAccept-Encoding: a\r\nAccept-Encoding: b\r\nAccept-Encoding: c\r\nAccept-Encoding: d\r\nIf-Match: \"m\"\r\n\r\n"
        let bytes = Array(text.utf8)
        guard case .complete(let head) = bytes.withUnsafeBufferPointer({ parser.parse($0) }) else {
            Issue.record("not complete")
            return
        }
        #expect(head.acceptEncoding.map { String(decoding: bytes[$0], as: UTF8.self) } == ["a", "b", "c", "d"])
        #expect(head.ifMatch.lines.map { String(decoding: bytes[$0], as: UTF8.self) } == ["\"m\""])
        #expect(head.ifNoneMatch.isPresent == false)
        #expect(Array(head.ifNoneMatch).isEmpty)
    }

    @Test func optionsAsteriskDescribesTheServer() throws {
        let core = try CoreServer()
        defer { core.stop() }
        let client = try core.client()
        defer { client.close() }
        try client.send("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.header("Allow") == "GET, HEAD")
        #expect(response.header("Content-Length") == "0")
        #expect(response.body.isEmpty)
        // The connection stays usable.
        try client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().status == 200)
        // `*` with any other method cannot name anything: 400 and close.
        try client.send("GET * HTTP/1.1\r\nHost: x\r\n\r\n")
        let refused = try client.readResponse()
        #expect(refused.status == 400)
        #expect(refused.header("Connection") == "close")
        #expect(client.waitForClose())
    }

    /// The keep-alive 404 goes out as one prebuilt segment; it must match the assembled answers.
    @Test func notFoundIsTheSameWhetherPrebuiltOrAssembled() throws {
        let core = try CoreServer()
        defer { core.stop() }
        let client = try core.client()
        defer { client.close() }
        try client.send("GET /missing.json HTTP/1.1\r\nHost: x\r\n\r\nGET /missing.json HTTP/1.1\r\nHost: x\r\n\r\n")
        for _ in 0..<2 {
            let response = try client.readResponse()
            #expect(response.status == 404)
            #expect(response.header("Server") == "core-test")
            #expect(response.header("Date") != nil)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.header("Cache-Control") == "public, max-age=60")
            #expect(response.header("Connection") == nil)
            #expect(response.bodyText == "{\"error\":\"not found\"}\n")
        }
        // Assembled variants: HEAD (no body), HTTP/1.0 (keep-alive spelled out), and close.
        try client.send("HEAD /missing.json HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readResponse(method: "HEAD")
        #expect(head.status == 404 && head.header("Content-Length") == "22" && head.body.isEmpty)
        try client.send("GET /missing.json HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let old = try client.readResponse()
        #expect(
            old.status == 404 && old.header("Connection") == "keep-alive"
                && old.bodyText == "{\"error\":\"not found\"}\n")
        try client.send("GET /missing.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let last = try client.readResponse()
        #expect(
            last.status == 404 && last.header("Connection") == "close"
                && last.header("Cache-Control") == "public, max-age=60")
        #expect(client.waitForClose())
    }
}
