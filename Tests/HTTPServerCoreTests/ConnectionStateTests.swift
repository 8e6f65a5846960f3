import Foundation
import Testing

@testable import HTTPServerCore

/// `HTTPConnection` without sockets: request bytes in, the exact bytes it wants written out, and a
/// fake clock for its deadlines (the shape of swift-nio's EmbeddedChannel tests).
@Suite struct ConnectionStateTests {
    /// A responder with one dynamic route; everything else is the site's static resources or 404.
    struct TestResponder: HTTPResponder {
        func respond(to request: HTTPRequest, name: UnsafeBufferPointer<UInt8>, into output: inout OutputQueue)
            -> HTTPAnswer
        {
            if let resource = request.site.resource(named: name) {
                return request.serve(resource, route: HTTPRoute(0), into: &output)
            }
            if String(decoding: name, as: UTF8.self) == "hello" {
                return request.respond(
                    status: 200, route: HTTPRoute(1), contentType: "text/plain", body: Array("hi\n".utf8), into: &output
                )
            }
            return request.notFound(into: &output)
        }
    }

    /// One connection, its handler and a clock in nanoseconds that only moves when told to.
    final class Wire {
        static let date = "Sun, 06 Nov 1994 08:49:37 GMT"
        static let body = Array(#"{"a":1}"#.utf8)
        let timeouts = HTTPConnection.Timeouts(header: 1_000, idle: 5_000, linger: 2_000)
        let handler: RequestHandler
        let dated: DatedParts
        let connection: HTTPConnection
        var now: UInt64 = 100
        var draining = false
        var answers: [HTTPAnswer] = []

        init(maxHeaderBytes: Int = 1_024) {
            let parts = ResponseParts(serverName: "test")
            let sites = SiteSlot()
            sites.install(
                StaticSite(resources: [
                    StaticResource(
                        name: "a.json", identity: Self.body, gzip: nil, sha256: "0123456789abcdef0123",
                        lastModified: Date(timeIntervalSince1970: 784_111_777),
                        cacheControl: CacheControl("public", "max-age=60"))
                ]))
            handler = RequestHandler(
                parser: HTTPRequestParser(maxHeaderBytes: maxHeaderBytes, maxURIBytes: 256),
                writer: ResponseWriter(parts: parts, routes: HTTPRoutes(applicationLabels: ["static", "hello"])),
                responder: TestResponder(), sites: sites)
            dated = DatedParts(second: 784_111_777, parts: parts)
            connection = HTTPConnection(now: now, timeouts: timeouts)
        }

        var exchange: Exchange { Exchange(handler: handler, dated: dated, draining: draining, now: now, socket: -1) }

        func feed(_ text: String) {
            Array(text.utf8).withUnsafeBufferPointer { bytes in
                connection.receive(bytes, exchange) { answer, _, _ in answers.append(answer) }
            }
        }

        /// What the connection wants written, as the client would read it; the write counts as
        /// progress at `now`.
        func written() -> String {
            let bytes = connection.output.drain()
            if !bytes.isEmpty { connection.wrote(now: now) }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    static let staticAnswer =
        "HTTP/1.1 200 OK\r\nServer: test\r\nDate: \(Wire.date)\r\nContent-Type: application/json\r\nContent-Length: 7\r\n"
        + "ETag: \"0123456789abcdef\"\r\nLast-Modified: \(Wire.date)\r\nCache-Control: public, max-age=60\r\nVary: Accept-Encoding\r\n"
        + "Accept-Ranges: bytes\r\n\r\n{\"a\":1}"
    static let helloAnswer =
        "HTTP/1.1 200 OK\r\nServer: test\r\nDate: \(Wire.date)\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n"
        + "Cache-Control: no-store\r\n\r\nhi\n"

    @Test func aRequestGetsItsExactBytesAndTheConnectionStaysOpen() {
        let wire = Wire()
        wire.feed("GET /a.json HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(wire.written() == Self.staticAnswer)
        #expect(wire.answers.map(\.status) == [200])
        #expect(wire.answers.first?.route == HTTPRoute(0))
        #expect(wire.connection.outputDrained(now: wire.now, draining: false) == .keepOpen)
        #expect(wire.connection.isIdle && wire.connection.wantsRead && !wire.connection.wantsWrite)
    }

    @Test func pipelinedRequestsAnswerInOrderHoweverTheBytesAreSplit() {
        let requests =
            "GET /a.json HTTP/1.1\r\nHost: x\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\n"
        let whole = Wire()
        whole.feed(requests)
        let expected = whole.written()
        #expect(expected.hasPrefix(Self.staticAnswer + Self.helloAnswer + "HTTP/1.1 404 Not Found\r\n"))
        let trickled = Wire()
        var received = ""
        for byte in requests {
            trickled.feed(String(byte))
            received += trickled.written()
        }
        #expect(received == expected)
        #expect(trickled.answers.map(\.status) == [200, 200, 404])
    }

    @Test func aMalformedHeadIsAnsweredThenTheConnectionLingersUntilItsDeadline() {
        let wire = Wire()
        wire.feed("GET /a.json HTTP/1.1\r\nHost : x\r\n\r\nGET /a.json HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = wire.written()
        #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(answer.contains("Connection: close\r\n\r\n{\"error\":\"whitespace between header name and colon\"}\n"))
        #expect(wire.answers.map(\.status) == [400], "nothing after a framing error is answered")
        #expect(wire.connection.phase == .closingAfterWrite && !wire.connection.wantsRead)
        #expect(wire.connection.outputDrained(now: wire.now, draining: false) == .shutdownWriteAndLinger)
        #expect(wire.connection.phase == .lingering && wire.connection.wantsRead)
        wire.feed("more bytes from the client are read and dropped")
        #expect(wire.written().isEmpty)
        #expect(!wire.connection.hasExpired(now: wire.now + wire.timeouts.linger))
        #expect(wire.connection.hasExpired(now: wire.now + wire.timeouts.linger + 1))
        #expect(wire.connection.peerFinishedSending(), "a lingering connection closes when the peer does")
    }

    @Test func aHeadMustCompleteWithinTheHeaderTimeoutOfItsFirstByte() {
        let wire = Wire()
        wire.now = 1_000
        wire.feed("GET /a.json HTTP/1.1\r\n")
        let deadline = wire.now + wire.timeouts.header
        // More bytes do not move the deadline: a trickle cannot keep a head open.
        wire.now = deadline - 10
        wire.feed("Host: x\r\nX-Slow: a\r\n")
        #expect(!wire.connection.hasExpired(now: deadline))
        #expect(wire.connection.hasExpired(now: deadline + 1))
        // Completing the head clears it; the idle limit then runs from the last write.
        wire.feed("\r\n")
        #expect(wire.written() == Self.staticAnswer)
        #expect(!wire.connection.hasExpired(now: deadline + 1))
        #expect(!wire.connection.hasExpired(now: wire.now + wire.timeouts.idle))
        #expect(wire.connection.hasExpired(now: wire.now + wire.timeouts.idle + 1))
    }

    @Test func aSilentConnectionExpiresAfterTheHeaderTimeout() {
        let wire = Wire()
        #expect(!wire.connection.hasExpired(now: wire.now + wire.timeouts.header))
        #expect(wire.connection.hasExpired(now: wire.now + wire.timeouts.header + 1))
    }

    @Test func requestsBeyondTheOutputBacklogWaitUntilItDrains() {
        let wire = Wire()
        let count = HTTPConnection.outputBacklogLimit / Self.helloAnswer.utf8.count + 100
        wire.feed(String(repeating: "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n", count: count))
        let first = wire.answers.count
        #expect(first < count)
        #expect(!wire.connection.wantsRead && wire.connection.wantsWrite, "no reading while the backlog is full")
        var total = wire.written().utf8.count
        wire.connection.resumeHeldRequests(wire.exchange) { answer, _, _ in wire.answers.append(answer) }
        total += wire.written().utf8.count
        #expect(wire.answers.count == count)
        #expect(total == count * Self.helloAnswer.utf8.count)
        #expect(wire.connection.isIdle)
    }

    @Test func aPeerThatClosesStillGetsWhatIsQueuedThenTheConnectionCloses() {
        let wire = Wire()
        wire.feed("GET /a.json HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(!wire.connection.peerFinishedSending(), "queued output is written first")
        #expect(wire.connection.phase == .closingAfterWrite && !wire.connection.wantsRead)
        #expect(wire.written() == Self.staticAnswer)
        #expect(wire.connection.outputDrained(now: wire.now, draining: false) == .close)
        let quiet = Wire()
        #expect(quiet.connection.peerFinishedSending(), "nothing owed: close at once")
    }

    @Test func aBodyIsSkippedAcrossReadsAndTheNextRequestParses() {
        let wire = Wire()
        wire.feed("POST /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n01234")
        #expect(!wire.connection.isIdle, "body bytes still to skip")
        wire.feed("56789GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(wire.answers.map(\.status) == [200, 200])
        #expect(wire.written() == Self.helloAnswer + Self.helloAnswer)
        #expect(wire.connection.isIdle)
    }

    @Test func whileDrainingAnswersCloseAndIdleConnectionsEnd() {
        let wire = Wire()
        wire.draining = true
        wire.feed("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(
            wire.written()
                == Self.helloAnswer.replacingOccurrences(
                    of: "no-store\r\n\r\n", with: "no-store\r\nConnection: close\r\n\r\n"))
        #expect(wire.connection.outputDrained(now: wire.now, draining: true) == .shutdownWriteAndLinger)
        let idle = Wire()
        #expect(idle.connection.outputDrained(now: idle.now, draining: true) == .close)
    }

    @Test func theConnectionLimitRefusalIsTheBytesItAlwaysWas() {
        let wire = Wire()
        var output = OutputQueue()
        let answer = wire.handler.writer.connectionLimitRefusal(into: &output)
        let body = "{\"error\":\"server at connection limit\"}\n"
        let expected =
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Cache-Control: no-store\r\nRetry-After: 5\r\nConnection: close\r\n\r\n" + body
        #expect(String(decoding: output.drain(), as: UTF8.self) == expected)
        #expect(answer.status == 503 && answer.close && answer.bytes == expected.utf8.count)
    }
}
