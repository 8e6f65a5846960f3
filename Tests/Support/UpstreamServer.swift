import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real HTTP/1.1 upstream on 127.0.0.1 for tests: serves fixture lists with ETag and
/// Last-Modified (answering 304 to matching conditional requests) and can be told to fail in
/// given ways per path. Every connection gets `Connection: close`. The one loopback HTTP server
/// of the tests: an upstream for the fetcher, an origin for the device.
public final class UpstreamServer: @unchecked Sendable {
    public enum Behavior: Sendable {
        /// 200 with the body; 304 when If-None-Match or If-Modified-Since matches. `contentEncoding`
        /// (e.g. "gzip", with `body` already encoded) is sent as `Content-Encoding`.
        case serve(body: [UInt8], etag: String? = nil, lastModified: String? = nil, contentEncoding: String? = nil)
        /// Just this status with a short body.
        case status(Int)
        /// Declares `Content-Length` of the whole body, sends `sentBytes` of it, then closes.
        case truncated(body: [UInt8], sentBytes: Int)
        /// Sends the headers, then one byte of the body every `interval` seconds.
        case drip(body: [UInt8], interval: Double)
        /// Reads the request and never answers (until the client or the test gives up).
        case hang
        /// A redirect to `location` (absolute URL or path).
        case redirect(location: String, status: Int = 302)
        /// Streams `chunk` repeatedly with chunked encoding, `count` times, with no Content-Length.
        case stream(chunk: [UInt8], count: Int)
        /// A close-delimited 200 body (no Content-Length, or a false `announcedLength`) of `bound`
        /// bytes, sent until the client hangs up; each reply's sent bytes land in `endlessRepliesSent`.
        case endless(bound: Int, announcedLength: Int? = nil)
    }

    /// One request as the server read it.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        /// Header names lowercased.
        public var headers: [String: String]
    }

    public let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var behaviors: [String: Behavior] = [:]
    private var recorded: [Request] = []
    private var sentBodyBytes: [String: Int] = [:]
    private var stopped = false
    private var connections = Set<Int32>()
    private var endlessSent: [Int] = []

    public init() throws {
        let (fd, port) = try LoopbackSocket.listen(backlog: 64)
        self.port = port
        listener = fd
        // The accept thread holds the server weakly while it blocks, so a test that simply drops the
        // server still gets `deinit` → `stop()`, which wakes `accept` and ends the thread.
        let thread = Thread { [weak self] in
            // The listener is closed here, when accept has returned for good, never by `stop()`:
            // a number closed while this thread may still call accept on it could be handed to
            // another test's socket, and this thread would then take that test's connections.
            defer { close(fd) }
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    return
                }
                guard let self, !self.isStopped else {
                    close(client)
                    return
                }
                self.adopt(client)
            }
        }
        thread.start()
    }

    deinit { stop() }

    /// The URL of `path` on this server.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    public func set(_ path: String, _ behavior: Behavior) {
        lock.lock()
        behaviors[path] = behavior
        lock.unlock()
    }

    /// Requests received so far, oldest first.
    public var requests: [Request] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    public func requests(for path: String) -> [Request] { requests.filter { $0.path == path } }

    /// Body bytes written for `path` across all requests (shows whether a client aborted early).
    public func bodyBytesSent(_ path: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return sentBodyBytes[path] ?? 0
    }

    /// Stops accepting and closes every open connection (hanging ones included).
    public func stop() {
        lock.lock()
        if stopped {
            lock.unlock()
            return
        }
        stopped = true
        // Under the lock: a connection's number is closed under it too (`finish`), so a number shut
        // down here is still this server's, not one the kernel has since given to another socket.
        for fd in connections { shutdown(fd, Int32(SHUT_RDWR)) }
        lock.unlock()
        shutdown(listener, Int32(SHUT_RDWR))
    }

    /// Body bytes each finished `.endless` reply sent before the client closed (`bound`: it never did).
    public var endlessRepliesSent: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return endlessSent
    }

    /// Serves every file under `directory` at its relative path.
    public func serveDirectory(_ directory: String) {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let name = enumerator?.nextObject() as? String {
            if let data = FileManager.default.contents(atPath: directory + "/" + name) {
                set("/" + name, .serve(body: Array(data)))
            }
        }
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    private func adopt(_ fd: Int32) {
        lock.lock()
        connections.insert(fd)
        lock.unlock()
        let thread = Thread { [self] in
            handle(fd)
            finish(fd)
        }
        thread.start()
    }

    /// Forgets and closes a connection under the lock `stop()` shuts connections down under.
    private func finish(_ fd: Int32) {
        lock.lock()
        connections.remove(fd)
        close(fd)
        lock.unlock()
    }

    private func handle(_ fd: Int32) {
        guard let request = readRequest(fd) else { return }
        lock.lock()
        recorded.append(request)
        let behavior = behaviors[request.path]
        lock.unlock()
        guard let behavior else {
            respond(fd, status: 404, headers: [], body: Array("not found\n".utf8), path: request.path)
            return
        }
        switch behavior {
        case .serve(let body, let etag, let lastModified, let contentEncoding):
            if let etag, request.headers["if-none-match"] == etag {
                respond(fd, status: 304, headers: [("ETag", etag)], body: [], path: request.path)
                return
            }
            if etag == nil, let lastModified, request.headers["if-modified-since"] == lastModified {
                respond(fd, status: 304, headers: [("Last-Modified", lastModified)], body: [], path: request.path)
                return
            }
            var headers: [(String, String)] = [("Content-Type", "text/plain; charset=utf-8")]
            if let etag { headers.append(("ETag", etag)) }
            if let lastModified { headers.append(("Last-Modified", lastModified)) }
            if let contentEncoding { headers.append(("Content-Encoding", contentEncoding)) }
            respond(fd, status: 200, headers: headers, body: body, path: request.path)
        case .status(let code):
            respond(fd, status: code, headers: [], body: Array("status \(code)\n".utf8), path: request.path)
        case .truncated(let body, let sentBytes):
            let head = "HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            _ = send(fd, Array(head.utf8))
            _ = send(fd, Array(body.prefix(sentBytes)))
            count(sentBytes, for: request.path)
            shutdown(fd, Int32(SHUT_WR))
        case .drip(let body, let interval):
            let head = "HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            guard send(fd, Array(head.utf8)) else { return }
            for byte in body {
                if isStopped || !send(fd, [byte]) { return }
                count(1, for: request.path)
                Thread.sleep(forTimeInterval: interval)
            }
        case .hang:
            // Hold the connection until the client closes it or the server stops.
            var buffer = [UInt8](repeating: 0, count: 512)
            while !isStopped {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&poller, 1, 100) > 0 {
                    if recv(fd, &buffer, buffer.count, 0) <= 0 { return }
                }
            }
        case .redirect(let location, let status):
            respond(fd, status: status, headers: [("Location", location)], body: [], path: request.path)
        case .stream(let chunk, let repeats):
            let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            guard send(fd, Array(head.utf8)) else { return }
            let frame = Array(String(chunk.count, radix: 16).utf8) + [13, 10] + chunk + [13, 10]
            for _ in 0..<repeats {
                if isStopped || !send(fd, frame) { return }
                count(chunk.count, for: request.path)
            }
            _ = send(fd, Array("0\r\n\r\n".utf8))
        case .endless(let bound, let announcedLength):
            let length = announcedLength.map { "Content-Length: \($0)\r\n" } ?? ""
            guard send(fd, Array("HTTP/1.1 200 OK\r\n\(length)Connection: close\r\n\r\n".utf8)) else { return }
            let chunk = [UInt8](repeating: UInt8(ascii: "A"), count: 65_536)
            var total = 0
            while total < bound, !isStopped, send(fd, chunk) { total += chunk.count }
            count(total, for: request.path)
            lock.lock()
            endlessSent.append(total)
            lock.unlock()
        }
    }

    private func count(_ bytes: Int, for path: String) {
        lock.lock()
        sentBodyBytes[path, default: 0] += bytes
        lock.unlock()
    }

    private func respond(_ fd: Int32, status: Int, headers: [(String, String)], body: [UInt8], path: String) {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        // The body goes in pieces, each counted once written, so `bodyBytesSent` shows where a client stopped reading.
        if send(fd, Array(head.utf8)), status != 304 {
            var offset = 0
            while offset < body.count {
                let end = min(body.count, offset + 65_536)
                guard !isStopped, send(fd, Array(body[offset..<end])) else { break }
                count(end - offset, for: path)
                offset = end
            }
        }
        shutdown(fd, Int32(SHUT_WR))
        // Let the client read everything before the socket closes.
        var buffer = [UInt8](repeating: 0, count: 256)
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, 1000) > 0, recv(fd, &buffer, buffer.count, 0) > 0 {}
    }

    /// Writes everything; false when the peer went away.
    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    private func readRequest(_ fd: Int32) -> Request? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = [13, 10, 13, 10]
        while data.count < 65_536 {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 5000)
            if ready <= 0 { return nil }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            data += buffer[0..<count]
            if let range = data.firstRange(of: end) {
                let text = String(decoding: data[..<range.lowerBound], as: UTF8.self)
                var lines = text.components(separatedBy: "\r\n")
                let requestLine = lines.removeFirst().split(separator: " ")
                guard requestLine.count >= 2 else { return nil }
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                        in: .whitespaces)
                }
                return Request(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers)
            }
        }
        return nil
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 304: return "Not Modified"
        case 404: return "Not Found"
        case 500: return "Internal Server Error"
        case 503: return "Service Unavailable"
        default: return "Status"
        }
    }

    public struct ServerError: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }
}
