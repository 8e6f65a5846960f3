import Foundation
import HTTPServerCore
import TestSupport
import Testing

/// Connection handling over real sockets: persistence, pipelining, HTTP/1.0, timeouts, limits
/// and abrupt clients (RFC 9112 §9), with `MinimalResponder` as the application.
@Suite struct SocketConnectionTests {
    @Test func keepAliveServesAHundredRequestsOnOneConnection() throws {
        let core = try CoreServer()
        defer { core.stop() }
        let client = try core.client()
        defer { client.close() }
        let manifest = core.site.identity("manifest.json")
        for index in 0..<100 {
            try client.send("GET /manifest.json?n=\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.body == manifest)
            #expect(response.header("Connection") == nil)
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let core = try CoreServer()
        defer { core.stop() }
        let client = try core.client()
        defer { client.close() }
        let name = core.site.names[0]
        try client.send(
            "GET /\(name) HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\nHEAD /manifest.json HTTP/1.1\r\nHost: x\r\n\r\nGET /manifest.json HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        let first = try client.readResponse()
        let second = try client.readResponse()
        let third = try client.readResponse(method: "HEAD")
        let fourth = try client.readResponse()
        #expect(first.status == 200 && first.body == core.site.identity(name))
        #expect(second.status == 404)
        #expect(third.status == 200 && third.body.isEmpty)
        #expect(fourth.status == 200 && fourth.body == core.site.identity("manifest.json"))
    }

    @Test func pipelinedBurstLargerThanOneRead() throws {
        let core = try CoreServer()
        defer { core.stop() }
        let client = try core.client(timeout: 10)
        defer { client.close() }
        // ~900 requests in one write span many reads and exceed the output backlog limit.
        let name = core.site.names[0]
        let count = 900
        try client.send(String(repeating: "GET /\(name) HTTP/1.1\r\nHost: x\r\n\r\n", count: count))
        for _ in 0..<count {
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.body.count == core.site.identity(name).count)
        }
    }

    @Test func http10ClosesUnlessKeepAliveIsAsked() throws {
        let core = try CoreServer()
        defer { core.stop() }
        let plain = try core.client()
        try plain.send("GET /manifest.json HTTP/1.0\r\n\r\n")
        let response = try plain.readResponse()
        #expect(response.status == 200)
        #expect(response.header("Connection") == "close")
        #expect(plain.waitForClose())

        let persistent = try core.client()
        defer { persistent.close() }
        for _ in 0..<3 {
            try persistent.send("GET /manifest.json HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let answer = try persistent.readResponse()
            #expect(answer.status == 200)
            #expect(answer.header("Connection") == "keep-alive")
        }
        let closing = try core.client()
        try closing.send("GET /manifest.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(try closing.readResponse().header("Connection") == "close")
        #expect(closing.waitForClose())
    }

    /// Each malformed request gets its status and then the connection closes.
    @Test func malformedRequestsAreRefusedAndClosed() throws {
        let core = try CoreServer()
        defer { core.stop() }
        let longTarget = "/" + String(repeating: "a", count: 3000)
        let bigHeader = "X-Filler: " + String(repeating: "b", count: 20_000)
        let cases: [(String, String, Int)] = [
            ("garbage request line", "GARBAGE\r\n\r\n", 400),
            ("two spaces", "GET  /manifest.json HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            ("lowercase version", "GET /manifest.json http/1.1\r\nHost: x\r\n\r\n", 400),
            ("header without colon", "GET /manifest.json HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n", 400),
            ("space before colon", "GET /manifest.json HTTP/1.1\r\nHost : x\r\n\r\n", 400),
            ("obs-fold", "GET /manifest.json HTTP/1.1\r\nHost: x\r\nX-A: a\r\n  b\r\n\r\n", 400),
            ("missing Host", "GET /manifest.json HTTP/1.1\r\n\r\n", 400),
            ("duplicate Host", "GET /manifest.json HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
            (
                "conflicting Content-Length",
                "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400
            ),
            ("bad Content-Length", "GET /manifest.json HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400),
            (
                "Transfer-Encoding with Content-Length",
                "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", 400
            ),
            ("NUL in header", "GET /manifest.json HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n", 400),
            ("bare CR", "GET /manifest.json HTTP/1.1\r\nHost: x\rX-A: b\r\n\r\n", 400),
            ("unknown Transfer-Encoding", "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
            ("chunked body", "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 411),
            ("HTTP/2.0", "GET /manifest.json HTTP/2.0\r\nHost: x\r\n\r\n", 505),
            ("HTTP/0.9 style", "GET /manifest.json HTTP/0.9\r\nHost: x\r\n\r\n", 505),
            ("long URI", "GET \(longTarget) HTTP/1.1\r\nHost: x\r\n\r\n", 414),
            ("huge header block", "GET /manifest.json HTTP/1.1\r\nHost: x\r\n\(bigHeader)\r\n\r\n", 431),
            ("huge body", "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n", 413),
        ]
        for (label, request, status) in cases {
            let client = try core.client()
            try client.send(request)
            let response = try client.readResponse()
            #expect(response.status == status, "\(label)")
            #expect(response.header("Connection") == "close", "\(label)")
            #expect(client.waitForClose(), "\(label): connection stays open")
        }
    }

    /// The responder's refusal goes out as it wrote it, and a body on a refused request is skipped:
    /// the next request on the connection still parses.
    @Test func aRefusedRequestsBodyIsSkipped() throws {
        let core = try CoreServer()
        defer { core.stop() }
        let client = try core.client()
        defer { client.close() }
        for method in ["DELETE", "PUT", "OPTIONS", "PATCH", "BREW"] {
            try client.send("\(method) /manifest.json HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 405, "\(method)")
            #expect(response.header("Allow") == "GET, HEAD")
        }
        try client.send(
            "POST /manifest.json HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello worldGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        )
        #expect(try client.readResponse().status == 405)
        #expect(try client.readResponse().status == 200)
    }

    /// Slowloris: a head trickling in byte by byte is cut off at headerReadTimeoutSeconds after its
    /// first byte, however long the trickle would go on; a connection that sends nothing too.
    /// Bounds: never before the timeout, and no later than the timeout plus two sweeps (250 ms
    /// each) and a second of scheduling margin.
    @Test func slowHeadersAreCutOff() throws {
        let timeout = 1.0
        let latest = timeout + 0.5 + 1.0
        let core = try CoreServer { $0.headerReadTimeoutSeconds = timeout }
        defer { core.stop() }
        let client = try core.client(timeout: 8)
        defer { client.close() }
        let start = Date()
        try client.send("GET /manifest.json HTTP/1.1\r\n")
        // The trickle paces itself (a byte per 100 ms, for up to 4 s) on its own thread until a send fails.
        let trickling = DispatchSemaphore(value: 0)
        let fd = client.fd
        Thread {
            for byte in Array("X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".utf8) {
                var one = byte
                if send(fd, &one, 1, Int32(MSG_NOSIGNAL)) != 1 { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
            trickling.signal()
        }.start()
        #expect(client.waitForClose())
        let closedAfter = Date().timeIntervalSince(start)
        #expect(
            closedAfter >= timeout, "closed \(closedAfter) s after the head started, before the \(timeout) s timeout")
        #expect(closedAfter <= latest, "closed \(closedAfter) s after the head started; the bound is \(latest) s")
        #expect(trickling.wait(timeout: .now() + 8) == .success)
        // A connection that sends nothing at all is closed on the same clock.
        let silentStart = Date()
        let silent = try core.client(timeout: 8)
        #expect(silent.waitForClose())
        let silentAfter = Date().timeIntervalSince(silentStart)
        #expect(
            silentAfter >= timeout - 0.05 && silentAfter <= latest, "silent connection closed after \(silentAfter) s")
    }

    @Test func idleKeepAliveConnectionsAreClosed() throws {
        let core = try CoreServer { $0.keepAliveIdleTimeoutSeconds = 1 }
        defer { core.stop() }
        let client = try core.client(timeout: 8)
        try client.send("GET /manifest.json HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().status == 200)
        #expect(client.waitForClose())
    }

    @Test func connectionsBeyondTheLimitGet503AndClose() throws {
        let core = try CoreServer { $0.maxConnections = 3 }
        defer { core.stop() }
        var held: [RawHTTPClient] = []
        for _ in 0..<3 {
            let client = try core.client()
            try client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().status == 200)
            held.append(client)
        }
        let extra = try core.client()
        let refused = try extra.readResponse()
        #expect(refused.status == 503)
        #expect(refused.header("Connection") == "close")
        #expect(extra.waitForClose())
        held[0].close()
        // Once a slot frees up, new connections are served again.
        let served = eventually(timeout: 2.5) {
            guard let client = try? core.client() else { return false }
            defer { client.close() }
            try? client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            return (try? client.readResponse().status) == 200
        }
        #expect(served)
        for client in held { client.close() }
    }

    /// A server holding 1000 idle connections (half of them mid-head) answers as fast as one
    /// holding none: requests alternate between two servers in the same run, and the median
    /// latency with the idle connections must stay within twice the median without them (work
    /// per request that grew with the number of connections would be many times slower).
    @Test func thousandIdleConnectionsDoNotDelayARequest() throws {
        let loaded = try CoreServer()
        defer { loaded.stop() }
        let quiet = try CoreServer()
        defer { quiet.stop() }
        var idle: [RawHTTPClient] = []
        defer { for client in idle { client.close() } }
        for _ in 0..<1000 { idle.append(try loaded.client()) }
        // Half of them have sent half a request head.
        for client in idle.prefix(500) { try client.send("GET /manifest.json HTTP/1.1\r\nHo") }
        let request = "GET /manifest.json HTTP/1.1\r\nHost: x\r\n\r\n"
        let loadedClient = try loaded.client(timeout: 5)
        defer { loadedClient.close() }
        let quietClient = try quiet.client(timeout: 5)
        defer { quietClient.close() }
        func latency(_ client: RawHTTPClient, _ core: CoreServer) throws -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            try client.send(request)
            let response = try client.readResponse()
            #expect(response.status == 200 && response.body == core.site.identity("manifest.json"))
            return Double(DispatchTime.now().uptimeNanoseconds - start)
        }
        var withIdle: [Double] = []
        var without: [Double] = []
        for _ in 0..<300 {
            withIdle.append(try latency(loadedClient, loaded))
            without.append(try latency(quietClient, quiet))
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        #expect(
            median(withIdle) <= 2 * median(without),
            "median \(Int(median(withIdle) / 1000)) µs with 1000 idle connections, \(Int(median(without) / 1000)) µs without"
        )
        // The idle connections were all still open, so every request was answered beside them.
        #expect(loaded.server.openConnections >= 1001)
    }

    @Test func clientResetMidDownloadLeavesTheServerServing() throws {
        let (site, name, big) = CoreSite.withBig(tag: 7, megabytes: 8)
        let core = try CoreServer(site: site)
        defer { core.stop() }
        for _ in 0..<5 {
            let client = try core.client()
            try client.send("GET /\(name) HTTP/1.1\r\nHost: x\r\n\r\nGET /\(name) HTTP/1.1\r\nHost: x\r\n\r\n")
            var chunk = [UInt8](repeating: 0, count: 4096)
            _ = recv(client.fd, &chunk, chunk.count, 0)
            client.reset()
        }
        let response = try core.request("/\(name)")
        #expect(response.status == 200)
        #expect(response.body == big)
        // The reset connections are gone (bounded wait).
        #expect(
            eventually(timeout: 5) { core.server.openConnections == 0 },
            "\(core.server.openConnections) connections still open")
    }
}
