import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One parsed HTTP response as received on the wire (no decompression, no redirects).
public struct HTTPTestResponse {
    public var status: Int
    public var reason: String
    /// In order, names as sent.
    public var headerLines: [(name: String, value: String)]
    public var body: [UInt8]

    /// The first value of a header (case-insensitive), nil if absent.
    public func header(_ name: String) -> String? {
        headerLines.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public func headers(_ name: String) -> [String] {
        headerLines.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// A blocking loopback HTTP/1.1 client that sends exactly the bytes a test gives it and parses
/// responses strictly, so tests see what the server really wrote. Every read is bounded by
/// `timeout` (SO_RCVTIMEO), so a misbehaving server fails a test instead of hanging it.
public final class RawHTTPClient {
    public struct Failure: Error, CustomStringConvertible { public var description: String }

    public let fd: Int32
    private var buffer: [UInt8] = []
    private var isClosed = false

    public init(port: Int, timeout: Double = 5) throws {
        do {
            fd = try LoopbackSocket.connect(port: port, timeout: timeout)
        } catch {
            throw Failure(description: "\(error)")
        }
    }

    deinit { close() }

    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

    /// One request on a fresh connection: the request line, `Host: 127.0.0.1`, `headers` in name
    /// order, then the response (`method` HEAD reads no body).
    public static func request(
        port: Int, _ target: String, method: String = "GET", headers: [String: String] = [:],
        timeout: Double = 5
    ) throws -> HTTPTestResponse {
        let client = try RawHTTPClient(port: port, timeout: timeout)
        defer { client.close() }
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        try client.send(text + "\r\n")
        return try client.readResponse(method: method)
    }

    /// Closes with an RST (SO_LINGER 0) instead of a FIN: a client that vanishes mid-download.
    public func reset() {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        close()
    }

    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if count <= 0 { throw Failure(description: "send failed: errno \(errno)") }
            offset += count
        }
    }

    /// Reads more bytes; false at end of stream. Throws on timeout or error.
    @discardableResult
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = recv(fd, &chunk, chunk.count, 0)
        if count > 0 {
            buffer += chunk[0..<count]
            return true
        }
        if count == 0 { return false }
        if errno == EAGAIN || errno == EWOULDBLOCK { throw Failure(description: "timed out waiting for the server") }
        if errno == ECONNRESET { return false }
        throw Failure(description: "recv failed: errno \(errno)")
    }

    /// Reads one response. `method` decides whether a body follows (HEAD has none).
    public func readResponse(method: String = "GET") throws -> HTTPTestResponse {
        var headEnd: Int?
        while headEnd == nil {
            headEnd = Self.find([13, 10, 13, 10], in: buffer)
            if headEnd == nil {
                guard try fill() else {
                    throw Failure(
                        description: "connection closed before a complete response head (\(buffer.count) bytes)")
                }
                if buffer.count > 1 << 20 { throw Failure(description: "response head too large") }
            }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2).map(String.init)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw Failure(description: "bad status line: \(statusLine)")
        }
        var headers: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw Failure(description: "bad header line: \(line)") }
            headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var response = HTTPTestResponse(
            status: status, reason: parts.count > 2 ? parts[2] : "", headerLines: headers, body: [])
        if method == "HEAD" || status == 304 || status == 204 || (100..<200).contains(status) { return response }
        if let lengthText = response.header("Content-Length") {
            guard let length = Int(lengthText) else { throw Failure(description: "bad Content-Length \(lengthText)") }
            while buffer.count < length {
                guard try fill() else {
                    throw Failure(description: "connection closed after \(buffer.count) of \(length) body bytes")
                }
            }
            response.body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else {
            while try fill() {}
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// True when the server closes the connection (FIN or RST) within the receive timeout,
    /// discarding anything it still sends.
    public func waitForClose() -> Bool {
        while true {
            do {
                if try !fill() { return true }
                buffer = []
            } catch {
                return false
            }
        }
    }

    /// Bytes that arrived but were not consumed by `readResponse`.
    public var unread: [UInt8] { buffer }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0], Array(haystack[index..<index + needle.count]) == needle { return index }
            index += 1
        }
        return nil
    }
}

/// A test server listening on 127.0.0.1 that tests talk to with `RawHTTPClient`.
public protocol LoopbackHTTPServer {
    var port: Int { get }
}

extension LoopbackHTTPServer {
    public func client(timeout: Double = 5) throws -> RawHTTPClient {
        try RawHTTPClient(port: port, timeout: timeout)
    }

    /// One request on a fresh connection.
    public func request(_ target: String, method: String = "GET", headers: [String: String] = [:]) throws
        -> HTTPTestResponse
    {
        try RawHTTPClient.request(port: port, target, method: method, headers: headers)
    }
}
