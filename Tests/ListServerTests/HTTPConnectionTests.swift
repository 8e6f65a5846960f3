import Foundation
import ListFormat
import Testing
import TestSupport
@testable import ListOrigin

/// Connection handling over real sockets: persistence, pipelining, HTTP/1.0, timeouts, limits
/// and abrupt clients (RFC 9112 §9).
@Suite struct HTTPConnectionTests {
    @Test func keepAliveServesAHundredRequestsOnOneConnection() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.close() }
        let manifest = harness.content.manifest!.identity
        for index in 0..<100 {
            try client.send("GET /manifest.json?n=\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.body == manifest)
            #expect(response.header("Connection") == nil)
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.close() }
        let name = harness.fileNames[0]
        try client.send("GET /\(name) HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\nHEAD /manifest.json HTTP/1.1\r\nHost: x\r\n\r\nGET /manifest.json HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try client.readResponse()
        let second = try client.readResponse()
        let third = try client.readResponse(method: "HEAD")
        let fourth = try client.readResponse()
        #expect(first.status == 200 && first.body == harness.content.files[name]!.identity)
        #expect(second.status == 404)
        #expect(third.status == 200 && third.body.isEmpty)
        #expect(fourth.status == 200 && fourth.body == harness.content.manifest!.identity)
    }

    @Test func pipelinedBurstLargerThanOneRead() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let client = try harness.client(timeout: 10)
        defer { client.close() }
        // ~900 requests in one write span many reads and exceed the output backlog limit.
        let name = harness.fileNames[0]
        let count = 900
        try client.send(String(repeating: "GET /\(name) HTTP/1.1\r\nHost: x\r\n\r\n", count: count))
        for _ in 0..<count {
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.body.count == harness.content.files[name]!.identity.count)
        }
    }

    @Test func http10ClosesUnlessKeepAliveIsAsked() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let plain = try harness.client()
        try plain.send("GET /manifest.json HTTP/1.0\r\n\r\n")
        let response = try plain.readResponse()
        #expect(response.status == 200)
        #expect(response.header("Connection") == "close")
        #expect(plain.waitForClose())

        let persistent = try harness.client()
        defer { persistent.close() }
        for _ in 0..<3 {
            try persistent.send("GET /manifest.json HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let answer = try persistent.readResponse()
            #expect(answer.status == 200)
            #expect(answer.header("Connection") == "keep-alive")
        }
        let closing = try harness.client()
        try closing.send("GET /manifest.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(try closing.readResponse().header("Connection") == "close")
        #expect(closing.waitForClose())
    }

    /// Each malformed request gets its status and then the connection closes.
    @Test func malformedRequestsAreRefusedAndClosed() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
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
            ("conflicting Content-Length", "POST /admin/refresh HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400),
            ("bad Content-Length", "GET /manifest.json HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400),
            ("Transfer-Encoding with Content-Length", "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", 400),
            ("NUL in header", "GET /manifest.json HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n", 400),
            ("bare CR", "GET /manifest.json HTTP/1.1\r\nHost: x\rX-A: b\r\n\r\n", 400),
            ("unknown Transfer-Encoding", "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
            ("chunked body", "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 411),
            ("HTTP/2.0", "GET /manifest.json HTTP/2.0\r\nHost: x\r\n\r\n", 505),
            ("HTTP/0.9 style", "GET /manifest.json HTTP/0.9\r\nHost: x\r\n\r\n", 505),
            ("long URI", "GET \(longTarget) HTTP/1.1\r\nHost: x\r\n\r\n", 414),
            ("huge header block", "GET /manifest.json HTTP/1.1\r\nHost: x\r\n\(bigHeader)\r\n\r\n", 431),
            ("huge body", "POST /admin/refresh HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n", 413),
        ]
        for (label, request, status) in cases {
            let client = try harness.client()
            try client.send(request)
            let response = try client.readResponse()
            #expect(response.status == status, "\(label)")
            #expect(response.header("Connection") == "close", "\(label)")
            #expect(client.waitForClose(), "\(label): connection stays open")
        }
    }

    @Test func otherMethodsAre405WithAllow() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let client = try harness.client()
        defer { client.close() }
        for method in ["DELETE", "PUT", "OPTIONS", "PATCH", "BREW"] {
            try client.send("\(method) /manifest.json HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 405, "\(method)")
            #expect(response.header("Allow") == "GET, HEAD")
        }
        // A body on a refused request is skipped; the next request on the connection still parses.
        try client.send("POST /manifest.json HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello worldGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
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
        let harness = try ServerHarness { $0.headerReadTimeoutSeconds = timeout }
        defer { harness.stop() }
        let client = try harness.client(timeout: 8)
        defer { client.close() }
        let start = Date()
        try client.send("GET /manifest.json HTTP/1.1\r\n")
        // The trickle runs on its own thread for up to 4 s (a byte per 100 ms) or until a send fails.
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
        #expect(closedAfter >= timeout, "closed \(closedAfter) s after the head started, before the \(timeout) s timeout")
        #expect(closedAfter <= latest, "closed \(closedAfter) s after the head started; the bound is \(latest) s")
        #expect(trickling.wait(timeout: .now() + 8) == .success)
        // A connection that sends nothing at all is closed on the same clock.
        let silentStart = Date()
        let silent = try harness.client(timeout: 8)
        #expect(silent.waitForClose())
        let silentAfter = Date().timeIntervalSince(silentStart)
        #expect(silentAfter >= timeout - 0.05 && silentAfter <= latest, "silent connection closed after \(silentAfter) s")
    }

    @Test func idleKeepAliveConnectionsAreClosed() throws {
        let harness = try ServerHarness { $0.keepAliveIdleTimeoutSeconds = 1 }
        defer { harness.stop() }
        let client = try harness.client(timeout: 8)
        try client.send("GET /manifest.json HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().status == 200)
        #expect(client.waitForClose())
    }

    @Test func connectionsBeyondTheLimitGet503AndClose() async throws {
        let harness = try ServerHarness { $0.maxConnections = 3 }
        defer { harness.stop() }
        var held: [RawHTTPClient] = []
        for _ in 0..<3 {
            let client = try harness.client()
            try client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try client.readResponse().status == 200)
            held.append(client)
        }
        let extra = try harness.client()
        let refused = try extra.readResponse()
        #expect(refused.status == 503)
        #expect(refused.header("Connection") == "close")
        #expect(extra.waitForClose())
        held[0].close()
        // Once a slot frees up, new connections are served again (bounded retries).
        let served = await eventually(timeout: 2.5) {
            guard let client = try? harness.client() else { return false }
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
        let loaded = try ServerHarness()
        defer { loaded.stop() }
        let quiet = try ServerHarness()
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
        func latency(_ client: RawHTTPClient, _ harness: ServerHarness) throws -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            try client.send(request)
            let response = try client.readResponse()
            #expect(response.status == 200 && response.body == harness.content.manifest!.identity)
            return Double(DispatchTime.now().uptimeNanoseconds - start)
        }
        var withIdle: [Double] = []
        var without: [Double] = []
        for _ in 0..<300 {
            withIdle.append(try latency(loadedClient, loaded))
            without.append(try latency(quietClient, quiet))
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        #expect(median(withIdle) <= 2 * median(without),
                "median \(Int(median(withIdle) / 1000)) µs with 1000 idle connections, \(Int(median(without) / 1000)) µs without")
        // The idle connections were all still open, so every request was answered beside them.
        #expect(loaded.server.openConnections >= 1001)
    }

    @Test func clientResetMidDownloadLeavesTheServerServing() throws {
        var content = try ServerHarness.sampleContent()
        let big = [UInt8]((0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let hash = SHA256Digest.hex(of: big)
        let name = "big.\(hash.prefix(12)).json"
        content.files[name] = SiteContent.Entry(name: name, identity: big, gzip: nil, sha256: hash, lastModified: Date())
        let harness = try ServerHarness(content: content)
        defer { harness.stop() }
        for _ in 0..<5 {
            let client = try harness.client()
            try client.send("GET /\(name) HTTP/1.1\r\nHost: x\r\n\r\nGET /\(name) HTTP/1.1\r\nHost: x\r\n\r\n")
            var chunk = [UInt8](repeating: 0, count: 4096)
            _ = recv(client.fd, &chunk, chunk.count, 0)
            client.reset()
        }
        let response = try harness.request("/\(name)")
        #expect(response.status == 200)
        #expect(response.body == big)
        // The reset connections are gone (bounded wait).
        #expect(eventually(timeout: 5) { harness.server.openConnections == 0 }, "\(harness.server.openConnections) connections still open")
    }
}
