import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import ListServer

/// A tiny HTTP/1.1 origin on 127.0.0.1 for the sync client's tests. It answers one request per
/// connection (`Connection: close`) from a handler the test sets, logs every request, and can
/// misbehave on purpose (cut a body short) in ways a well-behaved server cannot be made to.
final class ScriptedOrigin: @unchecked Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        /// Header names lowercased.
        var headers: [String: String]
    }

    struct Reply: Sendable {
        var status: Int
        var headers: [(String, String)] = []
        var body: [UInt8] = []
        /// Sends only this many body bytes (with the full Content-Length), then closes.
        var truncateTo: Int?
    }

    struct StartError: Error, CustomStringConvertible { var description: String }

    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var handler: @Sendable (Request) -> Reply = { _ in Reply(status: 404) }
    private var log: [Request] = []

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StartError(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 256) == 0 else {
            close(fd)
            throw StartError(description: "bind/listen on 127.0.0.1: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    func setHandler(_ handler: @escaping @Sendable (Request) -> Reply) {
        lock.lock(); self.handler = handler; lock.unlock()
    }

    var requests: [Request] {
        lock.lock(); defer { lock.unlock() }
        return log
    }

    func clearLog() {
        lock.lock(); log.removeAll(); lock.unlock()
    }

    /// Stops accepting; connections in flight finish on their own threads.
    func stop() {
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let terminator: [UInt8] = [13, 10, 13, 10]
        while head.count < 65_536 {
            let count = recv(connection, &buffer, buffer.count, 0)
            if count <= 0 { return }
            head += buffer[0..<count]
            if head.count >= 4, (0...(head.count - 4)).contains(where: { Array(head[$0..<$0 + 4]) == terminator }) { break }
        }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2 else { return }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let request = Request(method: String(parts[0]), path: String(parts[1]), headers: headers)
        lock.lock()
        log.append(request)
        let handler = self.handler
        lock.unlock()
        let reply = handler(request)
        var text = "HTTP/1.1 \(reply.status) X\r\nConnection: close\r\n"
        for (name, value) in reply.headers { text += "\(name): \(value)\r\n" }
        if reply.status != 304 { text += "Content-Length: \(reply.body.count)\r\n" }
        text += "\r\n"
        var bytes = Array(text.utf8)
        if request.method != "HEAD", reply.status != 304 {
            bytes += reply.body.prefix(reply.truncateTo ?? reply.body.count)
        }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }
}

/// A published set held in memory: a manifest plus content-hashed list files, as the publisher
/// names them, answered with ETag/If-None-Match and gzip the way the origin does.
struct ScriptedSite: Sendable {
    var manifest: [UInt8]
    var files: [String: [UInt8]]
    /// Directory part of the URL the set lives under, e.g. `/lists/`.
    var prefix = "/"

    /// Builds a set from list ids and bodies, named `<id>.<sha256[:12]>.json`.
    init(lists: [(id: String, body: String)], prefix: String = "/") {
        self.prefix = prefix
        var files: [String: [UInt8]] = [:]
        var entries: [String] = []
        for list in lists {
            let bytes = Array(list.body.utf8)
            let hash = SHA256.hex(bytes)
            let name = "\(list.id).\(hash.prefix(12)).json"
            files[name] = bytes
            entries.append(#"{"id":"\#(list.id)","file":"\#(name)","sha256":"\#(hash)","rules":1}"#)
        }
        self.files = files
        self.manifest = Array(#"{"format":1,"lists":[\#(entries.joined(separator: ","))]}"#.utf8)
    }

    var manifestETag: String { "\"" + SHA256.hex(manifest).prefix(16) + "\"" }

    func hash(ofFileFor id: String) -> String {
        let name = files.keys.first { $0.hasPrefix(id + ".") }!
        return SHA256.hex(files[name]!)
    }

    var hashes: Set<String> { Set(files.values.map { SHA256.hex($0) }) }

    func reply(to request: ScriptedOrigin.Request) -> ScriptedOrigin.Reply {
        guard request.path.hasPrefix(prefix) else { return .init(status: 404) }
        let name = String(request.path.dropFirst(prefix.count))
        if name == "manifest.json" {
            if request.headers["if-none-match"] == manifestETag {
                return .init(status: 304, headers: [("ETag", manifestETag)])
            }
            return .init(status: 200, headers: [("ETag", manifestETag), ("Content-Type", "application/json")], body: manifest)
        }
        guard let body = files[name] else { return .init(status: 404) }
        if request.headers["accept-encoding"]?.contains("gzip") == true, let gzip = try? Gzip.compress(body) {
            return .init(status: 200, headers: [("Content-Encoding", "gzip"), ("Content-Type", "application/json"), ("Vary", "Accept-Encoding")], body: gzip)
        }
        return .init(status: 200, headers: [("Content-Type", "application/json")], body: body)
    }
}

/// A fresh directory under /tmp, removed by `remove()`.
struct TemporaryDirectory {
    let path: String
    init(_ label: String) throws {
        path = NSTemporaryDirectory() + "listserver-\(label)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    var url: URL { URL(fileURLWithPath: path) }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
