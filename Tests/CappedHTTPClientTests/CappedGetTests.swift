import CappedHTTPClient
import TestSupport
import Testing

/// The one capped GET on its own, against a loopback upstream: what both the origin's fetcher and
/// the device's reads rely on.
@Suite struct CappedGetTests {
    private func get(_ url: String, cap: Int = 1 << 20, redirects: Int = CappedHTTPClient.defaultMaxRedirects)
        throws(CappedHTTPError)
        -> CappedHTTPClient.Response
    {
        try CappedHTTPClient().get(.init(url: url, maxBodyBytes: cap, maxRedirects: redirects, totalTimeoutSeconds: 5))
    }

    @Test func aBodyWithinTheCapArrivesWhole() throws {
        let upstream = try UpstreamServer()
        let body = Array(repeating: UInt8(ascii: "a"), count: 10_000)
        upstream.set("/list.txt", .serve(body: body, etag: "\"v1\""))
        let response = try get(upstream.url("/list.txt"))
        #expect(response.status == 200)
        #expect(response.body == body)
        #expect(response.header("etag") == "\"v1\"")
    }

    @Test func aBodyOverTheCapIsStoppedWhileStreaming() throws {
        let upstream = try UpstreamServer()
        upstream.set("/endless", .stream(chunk: Array(repeating: UInt8(ascii: "x"), count: 4096), count: 1_000))
        #expect(throws: CappedHTTPError.tooLarge(limit: 64 * 1024)) {
            try get(upstream.url("/endless"), cap: 64 * 1024)
        }
        #expect(
            upstream.bodyBytesSent("/endless") < 4096 * 1_000, "the transfer must stop near the cap, not run to the end"
        )
    }

    @Test func redirectsAreFollowedUpToTheLimitAndNoFurther() throws {
        let upstream = try UpstreamServer()
        upstream.set("/a", .redirect(location: "/b"))
        upstream.set("/b", .redirect(location: "/c"))
        upstream.set("/c", .serve(body: Array("ok".utf8)))
        #expect(try get(upstream.url("/a"), redirects: 2).body == Array("ok".utf8))
        #expect(throws: CappedHTTPError.tooManyRedirects(limit: 1)) { try get(upstream.url("/a"), redirects: 1) }
    }

    @Test func aRefusedConnectionIsAConnectionError() throws {
        let port: Int
        do {
            let upstream = try UpstreamServer()
            port = upstream.port
            upstream.stop()
        }
        #expect {
            _ = try get("http://127.0.0.1:\(port)/gone")
        } throws: { error in
            if case .connection = error as? CappedHTTPError { return true }
            return false
        }
    }
}
