import Foundation
import ListFormat
import TestSupport

@testable import ListOrigin
@testable import OriginConfig
@testable import OriginServe
@testable import OriginStore

/// Runs the real `HTTPServer` on an ephemeral 127.0.0.1 port for HTTP tests, with a small but
/// realistic published generation (a manifest and two hashed lists with gzip siblings).
package final class ServerHarness: LoopbackHTTPServer, @unchecked Sendable {
    package let server: HTTPServer
    package let port: Int
    package let status: StatusBoard
    package let content: SiteContent
    private let logLines = LockedLines()

    /// Bytes of the sample generation, so tests can compare what they receive.
    package static let sampleListA = PublishedSetForTests.ruleJSON(tag: "alpha", count: 400)
    package static let sampleListB = PublishedSetForTests.ruleJSON(tag: "beta", count: 50)
    /// 2020-10-19T10:00:00Z: a fixed publish time so Last-Modified is predictable.
    package static let publishTime = Date(timeIntervalSince1970: 1_603_101_600)

    package init(
        configure: (inout Configuration.HTTP) -> Void = { _ in }, content: SiteContent? = nil,
        admin: AdminCredential? = nil,
        onAdminRefresh: @escaping @Sendable () -> Void = {},
        onAcceptCompileTime: @escaping @Sendable () -> String? = { nil },
        onUnprotectedSite: (@Sendable (UnprotectedSiteChange) -> Void)? = nil,
        status: StatusBoard = StatusBoard(), publicDirectory: String? = nil,
        authLimiter: AuthFailureLimiter = AuthFailureLimiter()
    ) throws {
        var http = Configuration.HTTP()
        configure(&http)
        self.status = status
        let lines = logLines
        let log = Log(label: "http-test", minimum: .info, sink: { line in lines.append(line) })
        server = HTTPServer(
            configuration: http, listen: Configuration.Listen(address: "127.0.0.1", port: 0), status: status, log: log,
            admin: admin,
            onAdminRefresh: onAdminRefresh, onAcceptCompileTime: onAcceptCompileTime,
            onUnprotectedSite: onUnprotectedSite,
            publicDirectory: publicDirectory, authLimiter: authLimiter)
        port = try server.start()
        self.content = try content ?? Self.sampleContent()
        server.install(self.content)
    }

    /// Log lines written so far (access log and lifecycle messages).
    package var log: [String] { logLines.all }

    package func stop() {
        server.shutdown(grace: 2)
    }

    package var fileNames: [String] { content.files.keys.sorted() }

    package static func sampleContent(generation: String = "g1", at date: Date = publishTime) throws -> SiteContent {
        var files: [String: SiteContent.Entry] = [:]
        var manifestLists: [String] = []
        for (id, body) in [
            ("network-00", sampleListA + Array(generation.utf8)), ("network-01", sampleListB + Array(generation.utf8)),
        ] {
            let hash = SHA256Digest.hex(of: body)
            let name = "\(id).\(hash.prefix(12)).json"
            files[name] = SiteContent.Entry(
                name: name, identity: body, gzip: try Gzip.compress(body), sha256: hash, lastModified: date)
            manifestLists.append("{\"id\":\"\(id)\",\"file\":\"\(name)\",\"sha256\":\"\(hash)\",\"rules\":1}")
        }
        let manifest = Array("{\"format\":1,\"lists\":[\(manifestLists.joined(separator: ","))]}\n".utf8)
        let entry = SiteContent.Entry(
            name: "manifest.json", identity: manifest, gzip: try Gzip.compress(manifest),
            sha256: SHA256Digest.hex(of: manifest), lastModified: date)
        return SiteContent(manifest: entry, files: files)
    }
}

/// Thread-safe line collector for the captured log.
package final class LockedLines: @unchecked Sendable {
    package init() {}
    private let lock = NSLock()
    private var lines: [String] = []
    package func append(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }
    package var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }
}
