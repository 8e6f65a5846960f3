import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginConfig
@testable import OriginRefresh
@testable import OriginServe
@testable import OriginStore

/// The libcurl fetcher against a real loopback upstream.
@Suite struct FetchTests {
    static let list = Array(
        "[Adblock Plus 2.0]\n! Title: test\n||ads.example^\n||track.example^$third-party\n##.banner\n".utf8)

    func fetcher(maxBody: Int = 1 << 20, total: Double = 10, redirects: Int = 5) -> CurlFetcher {
        var configuration = Configuration.Fetch()
        configuration.maxBodyBytes = maxBody
        configuration.totalTimeoutSeconds = total
        configuration.connectTimeoutSeconds = 2
        configuration.maxRedirects = redirects
        return CurlFetcher(configuration: configuration)
    }

    @Test func bodyAndValidatorsThen304WithConditionalHeaders() throws {
        let server = try UpstreamServer()
        server.set("/list.txt", .serve(body: Self.list, etag: "\"v1\"", lastModified: "Mon, 19 Oct 2020 00:45:29 GMT"))
        let first = try fetcher().fetch(server.url("/list.txt"), validators: nil)
        #expect(first == .body(Self.list, Validators(etag: "\"v1\"", lastModified: "Mon, 19 Oct 2020 00:45:29 GMT")))
        let second = try fetcher().fetch(
            server.url("/list.txt"),
            validators: Validators(etag: "\"v1\"", lastModified: "Mon, 19 Oct 2020 00:45:29 GMT"))
        #expect(second == .notModified)
        let sent = try #require(server.requests(for: "/list.txt").last)
        #expect(sent.headers["if-none-match"] == "\"v1\"")
        #expect(sent.headers["if-modified-since"] == "Mon, 19 Oct 2020 00:45:29 GMT")
        #expect(server.requests(for: "/list.txt").first?.headers["accept-encoding"]?.contains("gzip") == true)
    }

    @Test func gzipContentEncodingIsDecoded() throws {
        let server = try UpstreamServer()
        server.set("/list.txt", .serve(body: try Gzip.compress(Self.list), contentEncoding: "gzip"))
        #expect(try fetcher().fetch(server.url("/list.txt"), validators: nil) == .body(Self.list, Validators()))
    }

    @Test func statusErrorsAndWhichAreRetried() throws {
        let server = try UpstreamServer()
        server.set("/500", .status(500))
        server.set("/404", .status(404))
        #expect(throws: FetchError.httpStatus(url: server.url("/500"), status: 500)) {
            try fetcher().fetch(server.url("/500"), validators: nil)
        }
        #expect(throws: FetchError.httpStatus(url: server.url("/404"), status: 404)) {
            try fetcher().fetch(server.url("/404"), validators: nil)
        }
        #expect(FetchError.httpStatus(url: "", status: 500).isRetryable)
        #expect(FetchError.httpStatus(url: "", status: 503).isRetryable)
        #expect(!FetchError.httpStatus(url: "", status: 404).isRetryable)
        #expect(!FetchError.httpStatus(url: "", status: 403).isRetryable)
    }

    @Test func retriesFiveHundredsButNotFourHundreds() throws {
        let server = try UpstreamServer()
        server.set("/500", .status(500))
        server.set("/404", .status(404))
        let policy = RetryPolicy(attempts: 3, baseDelay: 0.01, maxDelay: 0.05)
        var waits: [Double] = []
        let captured = LogLines()
        let log = captured.log
        let client = fetcher()
        #expect(throws: FetchError.self) {
            try policy.run(
                log: log, what: "fetch", sleep: { waits.append($0) },
                { () throws(FetchError) -> FetchResult in try client.fetch(server.url("/500"), validators: nil) })
        }
        #expect(server.requests(for: "/500").count == 3)
        #expect(waits.count == 2)
        #expect(waits.allSatisfy { $0 > 0 && $0 <= 0.05 })
        #expect(throws: FetchError.self) {
            try policy.run(
                log: log, what: "fetch", sleep: { waits.append($0) },
                { () throws(FetchError) -> FetchResult in try client.fetch(server.url("/404"), validators: nil) })
        }
        #expect(server.requests(for: "/404").count == 1)
        #expect(captured.lines.contains { $0.contains("attempt 1/3 failed, retrying") })
        #expect(captured.lines.contains { $0.contains("giving up") })
    }

    @Test func backoffDoublesWithJitterAndIsCapped() {
        let policy = RetryPolicy(attempts: 6, baseDelay: 2, maxDelay: 10)
        #expect(policy.delay(beforeRetry: 1, random: 1) == 2)
        #expect(policy.delay(beforeRetry: 2, random: 1) == 4)
        #expect(policy.delay(beforeRetry: 3, random: 1) == 8)
        #expect(policy.delay(beforeRetry: 4, random: 1) == 10)
        #expect(policy.delay(beforeRetry: 3, random: 0) == 4)
        #expect(policy.delay(beforeRetry: 9, random: 0.5) == 7.5)
    }

    @Test func serverThatNeverAnswersTimesOut() throws {
        let server = try UpstreamServer()
        server.set("/hang", .hang)
        let silent = try SilentListener()
        #expect {
            try fetcher(total: 1).fetch(server.url("/hang"), validators: nil)
        } throws: { error in
            guard case FetchError.timeout = error else { return false }
            return (error as! FetchError).isRetryable
        }
        #expect {
            try fetcher(total: 1).fetch("http://127.0.0.1:\(silent.port)/list.txt", validators: nil)
        } throws: { error in
            if case FetchError.timeout = error { return true }
            return false
        }
    }

    @Test func slowDripHitsTheTotalTimeout() throws {
        let server = try UpstreamServer()
        server.set("/drip", .drip(body: Self.list, interval: 0.2))
        #expect {
            try fetcher(total: 1).fetch(server.url("/drip"), validators: nil)
        } throws: { error in
            if case FetchError.timeout = error { return true }
            return false
        }
        #expect(server.bodyBytesSent("/drip") < Self.list.count)
    }

    @Test func truncatedBodyIsAnError() throws {
        let server = try UpstreamServer()
        server.set("/cut", .truncated(body: Self.list, sentBytes: 20))
        #expect {
            try fetcher().fetch(server.url("/cut"), validators: nil)
        } throws: { error in
            if case FetchError.truncated = error { return true }
            return false
        }
    }

    @Test func emptyOKIsAnEmptyBody() throws {
        let server = try UpstreamServer()
        server.set("/empty", .serve(body: []))
        #expect(try fetcher().fetch(server.url("/empty"), validators: nil) == .body([], Validators()))
    }

    @Test func bodyOverTheCapIsRefusedUpFrontOrWhileStreaming() throws {
        let server = try UpstreamServer()
        // Content-Length 64 MB: refused on the header, or cut once 100 KB have arrived. Either way
        // the server gets to write little more than what the loopback socket buffers hold.
        server.set("/big", .serve(body: [UInt8](repeating: 0x61, count: 64 * 1024 * 1024)))
        #expect(throws: FetchError.tooLarge(url: server.url("/big"), limit: 100_000)) {
            try fetcher(maxBody: 100_000).fetch(server.url("/big"), validators: nil)
        }
        #expect(
            server.bodyBytesSent("/big") < 16 * 1024 * 1024,
            "the client must stop the transfer, not download everything")
        // No Content-Length: 64 MB offered in 64 KB chunks; the cap stops the transfer early.
        server.set("/stream", .stream(chunk: [UInt8](repeating: 0x62, count: 65_536), count: 1024))
        #expect(throws: FetchError.tooLarge(url: server.url("/stream"), limit: 100_000)) {
            try fetcher(maxBody: 100_000).fetch(server.url("/stream"), validators: nil)
        }
        #expect(
            server.bodyBytesSent("/stream") < 16 * 1024 * 1024,
            "the client must abort while streaming, not download everything")
        // Gzip that inflates past the cap: the cap applies to decoded bytes.
        server.set(
            "/bomb",
            .serve(body: try Gzip.compress([UInt8](repeating: 0x63, count: 2_000_000)), contentEncoding: "gzip"))
        #expect(throws: FetchError.tooLarge(url: server.url("/bomb"), limit: 100_000)) {
            try fetcher(maxBody: 100_000).fetch(server.url("/bomb"), validators: nil)
        }
    }

    @Test func redirectsAreFollowedUpToTheLimit() throws {
        let server = try UpstreamServer()
        server.set("/a", .redirect(location: "/b"))
        server.set("/b", .redirect(location: server.url("/list.txt"), status: 301))
        server.set("/list.txt", .serve(body: Self.list))
        #expect(try fetcher().fetch(server.url("/a"), validators: nil) == .body(Self.list, Validators()))
        server.set("/loop1", .redirect(location: "/loop2"))
        server.set("/loop2", .redirect(location: "/loop1"))
        #expect(throws: FetchError.tooManyRedirects(url: server.url("/loop1"), limit: 5)) {
            try fetcher().fetch(server.url("/loop1"), validators: nil)
        }
        #expect(server.requests(for: "/loop1").count + server.requests(for: "/loop2").count == 6)
    }

    @Test func connectionRefusedIsARetryableConnectionError() throws {
        // A port nothing listens on: bind a listener, read its port, close it.
        let closedPort = try { () throws -> Int in
            let probe = try UpstreamServer()
            probe.stop()
            return probe.port
        }()
        #expect {
            try fetcher().fetch("http://127.0.0.1:\(closedPort)/list.txt", validators: nil)
        } throws: { error in
            guard case FetchError.connection = error else { return false }
            return (error as! FetchError).isRetryable
        }
    }
}

/// HTTPS upstreams over loopback: a throwaway certificate made with `openssl req`, and a tiny
/// Python TLS server (the only TLS server here without writing one) that redirects.
@Suite struct FetchTLSTests {
    final class TLSRedirector {
        let process: RunningChild
        let port: Int
        let certificate: String
        let directory = ScratchDirectory("tls")

        /// `/same` → `/list.txt` on itself (HTTPS), `/down` → `downgradeTarget` (plain HTTP).
        init(list: [UInt8], downgradeTarget: String) throws {
            certificate = directory.sub("cert.pem")
            let key = directory.sub("key.pem")
            let made = ListServerBinary.shell(
                "openssl req -x509 -newkey rsa:2048 -nodes -keyout \(key) -out \(certificate) -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1"
            )
            guard made.status == 0 else {
                throw UpstreamServer.ServerError("openssl req failed (is openssl installed?): \(made.output)")
            }
            try list.write(to: directory.sub("list.txt"))
            let script = """
                import http.server, ssl, sys
                body = open(sys.argv[3], 'rb').read()
                class Handler(http.server.BaseHTTPRequestHandler):
                    def do_GET(self):
                        if self.path == '/list.txt':
                            self.send_response(200); self.send_header('Content-Length', str(len(body))); self.end_headers(); self.wfile.write(body); return
                        target = '/list.txt' if self.path == '/same' else sys.argv[4]
                        self.send_response(302); self.send_header('Location', target); self.send_header('Content-Length', '0'); self.end_headers()
                    def log_message(self, *args): pass
                server = http.server.HTTPServer(('127.0.0.1', 0), Handler)
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(sys.argv[1], sys.argv[2])
                server.socket = context.wrap_socket(server.socket, server_side=True)
                print(server.server_address[1], flush=True)
                server.serve_forever()
                """
            try Array(script.utf8).write(to: directory.sub("tls.py"))
            process = try RunningChild(
                "/usr/bin/python3",
                [directory.sub("tls.py"), certificate, key, directory.sub("list.txt"), downgradeTarget],
                stdout: .pipe)
            let announced = try? PipeIO.readLine(process.output, deadline: Date().addingTimeInterval(30))
            let line = (announced ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            guard let port = Int(line) else {
                process.signal(SIGKILL)
                process.wait()
                throw UpstreamServer.ServerError("the Python TLS server did not start (printed \"\(line)\")")
            }
            self.port = port
        }

        deinit {
            process.signal(SIGKILL)
            process.wait()
            close(process.output)
        }
    }

    @Test func httpsWorksAndARedirectToPlainHTTPIsRefused() throws {
        let plain = try UpstreamServer()
        plain.set("/list.txt", .serve(body: FetchTests.list))
        let tls = try TLSRedirector(list: FetchTests.list, downgradeTarget: plain.url("/list.txt"))
        var configuration = Configuration.Fetch()
        configuration.totalTimeoutSeconds = 10
        let fetcher = CurlFetcher(configuration: configuration, certificateAuthorityFile: tls.certificate)
        #expect(
            try fetcher.fetch("https://127.0.0.1:\(tls.port)/same", validators: nil)
                == .body(FetchTests.list, Validators()),
            "HTTPS and an HTTPS→HTTPS redirect work")
        #expect {
            try fetcher.fetch("https://127.0.0.1:\(tls.port)/down", validators: nil)
        } throws: { error in
            guard case FetchError.insecureRedirect(_, let target) = error else { return false }
            return target == plain.url("/list.txt") && !(error as! FetchError).isRetryable
        }
        #expect(plain.requests.isEmpty, "the plain-HTTP target was never contacted")
        // Without the throwaway CA the certificate is refused (the system store is used).
        #expect {
            try CurlFetcher(configuration: configuration).fetch("https://127.0.0.1:\(tls.port)/same", validators: nil)
        } throws: { error in
            if case FetchError.tls = error { return true }
            return false
        }
    }
}
