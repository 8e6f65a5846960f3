import Foundation
import ListSync
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginConfig
@testable import OriginServe
@testable import OriginStore

#if canImport(Glibc)
    import Glibc
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A tiny HTTP/1.1 origin on 127.0.0.1 for the sync client's tests. It answers one request per
/// connection (`Connection: close`) from a handler the test sets, logs every request, and can
/// misbehave on purpose (cut a body short) in ways a well-behaved server cannot be made to.
package final class ScriptedOrigin: @unchecked Sendable {
    package struct Request: Sendable {
        package var method: String
        package var path: String
        /// Header names lowercased.
        package var headers: [String: String]
        package init(method: String, path: String, headers: [String: String]) {
            self.method = method
            self.path = path
            self.headers = headers
        }
    }

    package struct Reply: Sendable {
        package var status: Int
        package var headers: [(String, String)] = []
        package var body: [UInt8] = []
        /// Sends only this many body bytes (with the full Content-Length), then closes.
        package var truncateTo: Int?
        package init(status: Int, headers: [(String, String)] = [], body: [UInt8] = [], truncateTo: Int? = nil) {
            self.status = status
            self.headers = headers
            self.body = body
            self.truncateTo = truncateTo
        }
    }

    package struct StartError: Error, CustomStringConvertible { package var description: String }

    package let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var handler: @Sendable (Request) -> Reply = { _ in Reply(status: 404) }
    private var log: [Request] = []

    package init() throws {
        let (fd, port) = try LoopbackSocket.listen(backlog: 256)
        listener = fd
        self.port = port
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    package var baseURL: String { "http://127.0.0.1:\(port)" }

    package func setHandler(_ handler: @escaping @Sendable (Request) -> Reply) {
        lock.lock()
        self.handler = handler
        lock.unlock()
    }

    package var requests: [Request] {
        lock.lock()
        defer { lock.unlock() }
        return log
    }

    package func clearLog() {
        lock.lock()
        log.removeAll()
        lock.unlock()
    }

    /// Stops accepting; connections in flight finish on their own threads.
    package func stop() {
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
            if head.count >= 4, (0...(head.count - 4)).contains(where: { Array(head[$0..<$0 + 4]) == terminator }) {
                break
            }
        }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2 else { return }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
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
            let sent = bytes[offset...].withUnsafeBytes {
                send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return }
            offset += sent
        }
    }
}

/// A published set held in memory: a manifest plus content-hashed list files, as the publisher
/// names them, answered with ETag/If-None-Match and gzip the way the origin does.
package struct ScriptedSite: Sendable {
    package var manifest: [UInt8]
    package var files: [String: [UInt8]]
    /// Directory part of the URL the set lives under, e.g. `/lists/`.
    package var prefix = "/"

    /// Builds a set from list ids and bodies, named `<id>.<sha256[:12]>.json`.
    package init(lists: [(id: String, body: String)], prefix: String = "/") {
        self.prefix = prefix
        var files: [String: [UInt8]] = [:]
        var entries: [String] = []
        for list in lists {
            let bytes = Array(list.body.utf8)
            let hash = SHA256Digest.hex(of: bytes)
            let name = "\(list.id).\(hash.prefix(12)).json"
            files[name] = bytes
            entries.append(#"{"id":"\#(list.id)","file":"\#(name)","sha256":"\#(hash)","rules":1}"#)
        }
        self.files = files
        self.manifest = Array(#"{"format":1,"lists":[\#(entries.joined(separator: ","))]}"#.utf8)
    }

    package var manifestETag: String { "\"" + SHA256Digest.hex(of: manifest).prefix(16) + "\"" }

    package func hash(ofFileFor id: String) -> String {
        let name = files.keys.first { $0.hasPrefix(id + ".") }!
        return SHA256Digest.hex(of: files[name]!)
    }

    package var hashes: Set<String> { Set(files.values.map { SHA256Digest.hex(of: $0) }) }

    package func reply(to request: ScriptedOrigin.Request) -> ScriptedOrigin.Reply {
        guard request.path.hasPrefix(prefix) else { return .init(status: 404) }
        let name = String(request.path.dropFirst(prefix.count))
        if name == "manifest.json" {
            if request.headers["if-none-match"] == manifestETag {
                return .init(status: 304, headers: [("ETag", manifestETag)])
            }
            return .init(
                status: 200, headers: [("ETag", manifestETag), ("Content-Type", "application/json")], body: manifest)
        }
        guard let body = files[name] else { return .init(status: 404) }
        if request.headers["accept-encoding"]?.contains("gzip") == true, let gzip = try? Gzip.compress(body) {
            return .init(
                status: 200,
                headers: [
                    ("Content-Encoding", "gzip"), ("Content-Type", "application/json"), ("Vary", "Accept-Encoding"),
                ], body: gzip)
        }
        return .init(status: 200, headers: [("Content-Type", "application/json")], body: body)
    }
}

/// A fresh directory under /tmp, removed by `remove()`.
package struct TemporaryDirectory {
    package let path: String
    package init(_ label: String) throws {
        path = NSTemporaryDirectory() + "listserver-\(label)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    package var url: URL { URL(fileURLWithPath: path) }
    package func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A published set built the way the publisher names and encodes it (content-hashed names,
/// deterministic gzip, the publisher's manifest bytes), ready to `install` in the origin.
package struct PublishedSetForTests {
    /// The list files on disk (name → bytes): what a device would download.
    package static func listFiles(_ directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory)
        where name.hasSuffix(".json") || name.hasSuffix(".gz") {
            guard name != PublishPlan.manifestName, name != PublishPlan.reportName, name != PublishPlan.layoutName
            else { continue }
            files[name] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
        }
        return files
    }

    package var lists: [PlannedList]
    package var manifest: [UInt8]

    package init(lists: [(id: String, json: [UInt8])]) throws {
        self.lists = try lists.map { list in
            let hash = SHA256Digest.hex(of: list.json)
            return PlannedList(
                id: list.id, rules: 1, sha256: hash,
                fileName: "\(list.id).\(hash.prefix(PublishPlan.hashPrefixLength)).json",
                identity: list.json, gzip: try Gzip.compress(list.json))
        }
        manifest = PublishPlan.manifestBytes(self.lists)
    }

    package init(plan: PublishPlan) {
        lists = plan.lists
        manifest = plan.manifest
    }

    /// A deterministic list of `count` block rules whose filters carry `tag`.
    package static func ruleJSON(tag: String, count: Int) -> [UInt8] {
        Array(
            ("["
                + (0..<count).map {
                    #"{"trigger":{"url-filter":"^https?://[^/]*\#(tag)-\#($0)\\.example/"},"action":{"type":"block"}}"#
                }
                .joined(separator: ",") + "]").utf8)
    }

    package var hashes: Set<String> { Set(lists.map(\.sha256)) }

    package func list(_ id: String) -> PlannedList { lists.first { $0.id == id }! }

    package var siteContent: SiteContent {
        let now = Date()
        var files: [String: SiteContent.Entry] = [:]
        for list in lists {
            files[list.fileName] = SiteContent.Entry(
                name: list.fileName, identity: list.identity, gzip: list.gzip,
                sha256: list.sha256, lastModified: now)
        }
        let manifestEntry = SiteContent.Entry(
            name: PublishPlan.manifestName, identity: manifest, gzip: nil,
            sha256: SHA256Digest.hex(of: manifest), lastModified: now)
        return SiteContent(manifest: manifestEntry, files: files)
    }
}

/// The real origin, `HTTPServer`, on an ephemeral loopback port, with its access log captured so
/// tests can count what reached the origin, by path and status.
package struct OriginForTests {
    /// One access-log line: a request the origin answered.
    package struct Request: Equatable, CustomStringConvertible {
        package var method: String
        package var path: String
        package var status: Int
        package var description: String { "\(method) \(path) \(status)" }
        package init(method: String, path: String, status: Int) {
            self.method = method
            self.path = path
            self.status = status
        }
    }

    package let server: HTTPServer
    package let port: Int
    private let recorder = LockedLines()

    package init(manifestMaxAge: Int = 300, staleWhileRevalidate: Int = 600) throws {
        var http = Configuration.HTTP()
        http.manifestMaxAgeSeconds = manifestMaxAge
        http.manifestStaleWhileRevalidateSeconds = staleWhileRevalidate
        http.accessLog = true
        let recorder = self.recorder
        let log = Log(label: "origin", minimum: .info, sink: { recorder.append($0) })
        server = HTTPServer(
            configuration: http, listen: Configuration.Listen(address: "127.0.0.1", port: 0),
            status: StatusBoard(), log: log, admin: nil)
        port = try server.start()
    }

    package var baseURL: String { "http://127.0.0.1:\(port)" }

    package func install(_ set: PublishedSetForTests) { server.install(set.siteContent) }

    /// Requests answered so far, in order, from lines like `... access PEER GET /path 200 BYTES 12us`;
    /// a CDN's `/healthz` probes are left out.
    package var requests: [Request] {
        recorder.all.compactMap { line in
            let words = line.split(separator: " ")
            guard let at = words.firstIndex(of: "access"), words.count > at + 4, let status = Int(words[at + 4]),
                words[at + 3] != "/healthz"
            else { return nil }
            return Request(method: String(words[at + 2]), path: String(words[at + 3]), status: status)
        }
    }

    package func stop() { server.shutdown(grace: 1) }
}

/// Runs `count` independent devices (each its own store) against `manifestURL`, at most
/// `parallel` at a time, and returns their reports in device order.
package func syncDevices(_ stores: [TemporaryDirectory], manifestURL: String, session: URLSession, parallel: Int = 25)
    async throws -> [SyncReport]
{
    var reports = [SyncReport?](repeating: nil, count: stores.count)
    try await withThrowingTaskGroup(of: (Int, SyncReport).self) { group in
        var next = 0
        func addNext() {
            guard next < stores.count else { return }
            let index = next
            next += 1
            let client = SyncClient(
                manifestURL: URL(string: manifestURL)!, store: SyncStore(directory: stores[index].url),
                trust: .unsignedAllowed,
                session: session, options: .init(timeout: 20))
            group.addTask { (index, try await client.sync()) }
        }
        for _ in 0..<parallel { addNext() }
        while let (index, report) = try await group.next() {
            reports[index] = report
            addNext()
        }
    }
    return reports.map { $0! }
}

extension TemporaryDirectory {
    /// Hashes of the bodies in the device store, checked by reading them back.
    package func storedHashes() throws -> Set<String> {
        let lists = path + "/lists"
        var hashes = Set<String>()
        for name in try FileManager.default.contentsOfDirectory(atPath: lists) {
            let data = try #require(FileManager.default.contents(atPath: lists + "/" + name))
            #expect(
                name == SHA256Digest.hex(of: data) + ".json",
                "store file \(name) does not hold the bytes its name promises")
            hashes.insert(SHA256Digest.hex(of: data))
        }
        return hashes
    }
}
