import Foundation
import TestSupport
import Testing

@testable import HTTPServerCore

/// The byte-level request parser and header interpreters, without sockets, plus a seeded
/// random-input fuzz run.
@Suite struct HTTPRequestParserTests {
    let parser = HTTPRequestParser(maxHeaderBytes: 16_384, maxURIBytes: 2_048)

    func parse(_ text: String) -> HTTPParseResult {
        parse(Array(text.utf8))
    }

    func parse(_ bytes: [UInt8]) -> HTTPParseResult {
        bytes.withUnsafeBufferPointer { parser.parse($0) }
    }

    @Test func parsesATypicalHead() throws {
        let text =
            "GET /manifest.json?x=1 HTTP/1.1\r\nHost: cdn.example\r\nAccept-Encoding: gzip, br\r\nIf-None-Match: \"a\"\r\nIf-None-Match: W/\"b\"\r\nRange: bytes=0-5\r\nConnection: keep-alive, close\r\n\r\nNEXT"
        guard case .complete(let head) = parse(text) else {
            Issue.record("not complete: \(parse(text))")
            return
        }
        let bytes = Array(text.utf8)
        #expect(head.method == .get)
        #expect(String(decoding: bytes[head.target], as: UTF8.self) == "/manifest.json?x=1")
        #expect(head.version == .http11)
        #expect(head.length == bytes.count - 4)
        #expect(head.hostCount == 1)
        #expect(head.acceptEncoding.lines.count == 1)
        #expect(head.ifNoneMatch.lines.count == 2)
        #expect(head.range.map { String(decoding: bytes[$0], as: UTF8.self) } == "bytes=0-5")
        #expect(head.connectionClose && head.connectionKeepAlive && !head.wantsKeepAlive)
    }

    @Test func bareLineFeedsAndLeadingEmptyLinesAreAccepted() {
        guard case .complete(let head) = parse("\r\nGET / HTTP/1.0\nHost: x\n\n") else {
            Issue.record("LF-only head not accepted")
            return
        }
        #expect(head.version == .http10)
        #expect(!head.wantsKeepAlive)
    }

    @Test func incompleteHeadsWaitForMoreBytes() {
        for prefix in ["", "G", "GET / HTTP/1.1", "GET / HTTP/1.1\r\nHost: x\r\n", "GET / HTTP/1.1\r\nHost: x\r\n\r"] {
            #expect(parse(prefix) == .incomplete, "\(prefix.debugDescription)")
        }
    }

    @Test func limitsAreEnforcedBeforeTheHeadCompletes() {
        let longLine = "GET /" + String(repeating: "a", count: 3000)
        #expect(parse(longLine) == .failure(.uriTooLong))
        let manyHeaders = "GET / HTTP/1.1\r\n" + String(repeating: "X-A: 0123456789\r\n", count: 2000)
        #expect(parse(manyHeaders) == .failure(.headerFieldsTooLarge))
    }

    @Test func framingConflictsAreRejected() {
        #expect(parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 5\r\n\r\n").isComplete)
        #expect(parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 6\r\n\r\n").statusCode == 400)
        #expect(parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 05\r\n\r\n").isComplete)
        #expect(parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\n").statusCode == 400)
        #expect(parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n").statusCode == 400)
        #expect(parse("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n").statusCode == 501)
        #expect(
            parse("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n")
                .statusCode == 501)
        #expect(parse("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n").statusCode == 400)
        #expect(parse("GET / HTTP/1.0\r\n\r\n").isComplete)
        #expect(parse("GET / HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n").statusCode == 400)
        #expect(parse("GET / HTTP/1.9\r\nHost: a\r\n\r\n").isComplete)
        #expect(parse("GET / HTTP/3.0\r\nHost: a\r\n\r\n").statusCode == 505)
    }

    @Test func httpDatesRoundTripInAllThreeFormats() {
        let seconds = 784_111_777  // Sun, 06 Nov 1994 08:49:37 GMT (RFC 9110's example)
        #expect(String(decoding: HTTPDate.format(seconds), as: UTF8.self) == "Sun, 06 Nov 1994 08:49:37 GMT")
        for text in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            #expect(Array(text.utf8).withUnsafeBufferPointer { HTTPDate.parse($0) } == seconds, "\(text)")
        }
        for text in [
            "", "Sun, 06 Nov 1994 08:49:37", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
            "yesterday",
        ] {
            #expect(Array(text.utf8).withUnsafeBufferPointer { HTTPDate.parse($0) } == nil, "\(text)")
        }
        for value in [0, 951_782_400, 1_603_101_600, 4_102_444_799] {
            let formatted = HTTPDate.format(value)
            #expect(formatted.withUnsafeBufferPointer { HTTPDate.parse($0) } == value)
        }
    }

    @Test func qValues() {
        func q(_ text: String) -> Int? {
            Array(text.utf8).withUnsafeBufferPointer { ContentNegotiation.parseQValue($0) }
        }
        #expect(q("1") == 1000)
        #expect(q("1.000") == 1000)
        #expect(q("0.5") == 500)
        #expect(q("0.001") == 1)
        #expect(q("0") == 0)
        #expect(q("1.5") == nil)
        #expect(q("0.0001") == nil)
        #expect(q("2") == nil)
    }

    /// 50,000 seeded mutations of real request heads: the parser never traps, stays inside the
    /// buffer, and agrees with itself when the same bytes arrive in two pieces.
    @Test func seededRandomInputsNeverBreakTheParser() {
        let seeds = [
            "GET /manifest.json HTTP/1.1\r\nHost: cdn.example\r\nAccept-Encoding: gzip;q=1, identity;q=0.5\r\nIf-None-Match: W/\"abc\", \"def\"\r\n\r\n",
            "HEAD /network-00.0123456789ab.json HTTP/1.0\r\nConnection: keep-alive\r\nRange: bytes=0-99\r\nIf-Range: \"x\"\r\n\r\n",
            "POST /admin/refresh HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer t\r\nContent-Length: 3\r\n\r\nabc",
            "GET http://cdn.example/%2e%2e/x?y HTTP/1.1\r\nHost: b\r\nTransfer-Encoding: chunked\r\nIf-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n",
        ].map { Array($0.utf8) }
        let interesting: [UInt8] = [0x0D, 0x0A, 0x20, 0x09, 0x3A, 0x2C, 0x3B, 0x22, 0x00, 0x7F, 0xFF, 0x25, 0x2F, 0x3D]
        var random = HTTPFuzzGenerator(seed: 0x5EED_1234)
        let small = HTTPRequestParser(maxHeaderBytes: 256, maxURIBytes: 64)
        var outcomes: [String: Int] = [:]
        for iteration in 0..<50_000 {
            var input = seeds[Int(random.next() % UInt64(seeds.count))]
            for _ in 0..<(1 + Int(random.next() % 6)) {
                guard !input.isEmpty else { break }
                let position = Int(random.next() % UInt64(input.count))
                switch random.next() % 6 {
                case 0: input[position] = UInt8(truncatingIfNeeded: random.next())
                case 1: input[position] = interesting[Int(random.next() % UInt64(interesting.count))]
                case 2: input.insert(interesting[Int(random.next() % UInt64(interesting.count))], at: position)
                case 3: input.removeSubrange(position..<min(input.count, position + Int(random.next() % 8)))
                case 4: input = Array(input[..<position])
                default:
                    input.insert(
                        contentsOf: input[position..<min(input.count, position + Int(random.next() % 40))], at: position
                    )
                }
            }
            for limits in [parser, small] {
                let result = input.withUnsafeBufferPointer { limits.parse($0) }
                switch result {
                case .complete(let head):
                    outcomes["complete", default: 0] += 1
                    #expect(head.length <= input.count)
                    #expect(head.target.upperBound <= head.length && !head.target.isEmpty)
                    for range in [
                        head.range, head.ifRange, head.authorization, head.ifModifiedSince, head.ifUnmodifiedSince,
                    ].compactMap({ $0 })
                        + head.acceptEncoding.lines + head.ifNoneMatch.lines + head.ifMatch.lines
                    {
                        #expect(range.upperBound <= head.length)
                    }
                    // The interpreters accept whatever the parser hands them.
                    input.withUnsafeBufferPointer { bytes in
                        _ = ContentNegotiation.choose(bytes, header: head.acceptEncoding, gzipAvailable: true)
                        _ = ConditionalRequest.evaluate(
                            bytes, head: head, etag: Array("\"def\"".utf8), lastModified: 784_111_777)
                        if let range = head.range { _ = RangeRequest.evaluate(bytes, value: range, length: 1000) }
                        if let value = head.ifRange {
                            _ = ConditionalRequest.ifRangeHolds(
                                bytes, value: value, etag: [0x22, 0x22], lastModified: 0)
                        }
                        _ = RequestTarget.path(bytes, target: head.target)
                    }
                    // Every prefix of a complete head is still incomplete (or already an error).
                    if iteration % 50 == 0 {
                        for cut in 0..<head.length {
                            let prefixResult = input.withUnsafeBufferPointer {
                                limits.parse(UnsafeBufferPointer(rebasing: $0[0..<cut]))
                            }
                            #expect(!prefixResult.isComplete, "prefix \(cut) of \(head.length) parsed as complete")
                        }
                    }
                case .incomplete:
                    outcomes["incomplete", default: 0] += 1
                    #expect(input.count <= limits.maxHeaderBytes + limits.maxURIBytes + 64 + 64)
                case .failure(let failure):
                    outcomes["status \(failure.statusCode)", default: 0] += 1
                }
            }
        }
        // The mutations reach every branch family.
        #expect((outcomes["complete"] ?? 0) > 1000)
        #expect((outcomes["incomplete"] ?? 0) > 1000)
        #expect((outcomes["status 400"] ?? 0) > 1000)
    }
}

extension HTTPParseResult {
    var isComplete: Bool {
        if case .complete = self { return true }
        return false
    }

    var statusCode: Int? {
        if case .failure(let failure) = self { return failure.statusCode }
        return nil
    }
}

/// The seeded generator the fuzz loops use (TestSupport's SplitMix64), by its old name.
typealias HTTPFuzzGenerator = SeededGenerator
