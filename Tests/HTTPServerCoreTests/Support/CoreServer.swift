import Foundation
import HTTPServerCore
import TestSupport

/// The smallest application an `HTTP1Server` can run: the installed site's resources by name, a
/// dynamic `healthz`, `405` with `Allow` for anything but GET and HEAD, and the shared 404. Only
/// HTTPServerCore's public API, as an embedding application would write it.
struct MinimalResponder: HTTPResponder {
    static let routes = HTTPRoutes(applicationLabels: ["static", "healthz"])

    func respond(to request: HTTPRequest, name: UnsafeBufferPointer<UInt8>, into output: inout OutputQueue)
        -> HTTPAnswer
    {
        guard request.head.method == .get || request.head.method == .head else {
            return request.error(
                405, "method not allowed", route: request.routes.invalid, fields: [.allow("GET, HEAD")], into: &output)
        }
        if let resource = request.site.resource(named: name) {
            return request.serve(resource, route: HTTPRoute(0), into: &output)
        }
        if name.elementsEqual("healthz".utf8) {
            return request.respond(
                status: 200, route: HTTPRoute(1), contentType: "application/json",
                body: Array("{\"status\":\"ok\"}\n".utf8),
                into: &output)
        }
        return request.notFound(into: &output)
    }
}

/// A real `HTTP1Server` with `MinimalResponder` on an ephemeral 127.0.0.1 port, serving a small
/// site: two immutable "lists" with a second representation, and a short-cached `manifest.json`.
final class CoreServer: LoopbackHTTPServer, @unchecked Sendable {
    let server: HTTP1Server
    let port: Int
    let site: CoreSite

    init(configure: (inout HTTPServerConfiguration) -> Void = { _ in }, site: CoreSite = CoreSite()) throws {
        var configuration = HTTPServerConfiguration()
        configuration.address = "127.0.0.1"
        configuration.port = 0
        configuration.serverName = "core-test"
        configure(&configuration)
        server = HTTP1Server(
            configuration: configuration, routes: MinimalResponder.routes, responder: MinimalResponder(), log: { _ in })
        port = try server.start()
        self.site = site
        server.install(site.staticSite)
    }

    func stop() {
        server.shutdown(grace: 2)
    }
}

/// One generation of resources for `CoreServer`. The library treats a resource's bytes and its
/// `sha256` as opaque, so the second representation is a stand-in (`encoded`) rather than real
/// gzip, and the tag is a 64-bit FNV-1a of the bytes: enough to tell generations and bodies apart.
struct CoreSite {
    /// 2020-10-19T10:00:00Z, so Last-Modified is predictable.
    static let publishTime = Date(timeIntervalSince1970: 1_603_101_600)
    static let lastModified = "Mon, 19 Oct 2020 10:00:00 GMT"
    static let immutable = "public, max-age=31536000, immutable"
    static let shortCache = "public, max-age=60, stale-while-revalidate=30"
    static let vary = "Accept-Encoding, Available-Dictionary"

    var resources: [String: StaticResource] = [:]

    init(generation: String = "g1") {
        for (name, count) in [("list-a.json", 400), ("list-b.json", 50)] {
            let body = Self.ruleBytes(tag: name, count: count) + Array(generation.utf8)
            add(
                name, body, cacheControl: Self.immutable, vary: Self.vary,
                fields: [.useAsDictionary("match=\"/list-*.json\"")])
        }
        let manifest = Array("{\"format\":1,\"generation\":\"\(generation)\"}\n".utf8)
        add("manifest.json", manifest, cacheControl: Self.shortCache)
    }

    /// Adds (or replaces) a resource with an encoded representation unless `encoded` is false.
    mutating func add(
        _ name: String, _ body: [UInt8], encoded: Bool = true, cacheControl: String = immutable,
        vary: String = "Accept-Encoding",
        fields: [HTTPField] = []
    ) {
        resources[name] = StaticResource(
            name: name, identity: body, gzip: encoded ? Self.encode(body) : nil, sha256: Self.tag(body),
            lastModified: Self.publishTime, cacheControl: CacheControl(cacheControl), vary: vary, fields: fields)
    }

    var staticSite: StaticSite { StaticSite(resources: Array(resources.values)) }

    var names: [String] { resources.keys.filter { $0 != "manifest.json" }.sorted() }

    func identity(_ name: String) -> [UInt8] { resources[name]!.identity }
    func encoded(_ name: String) -> [UInt8] { resources[name]!.gzip! }

    /// The stand-in for a compressed representation: distinct bytes of a different length.
    static func encode(_ body: [UInt8]) -> [UInt8] {
        Array("encoded:".utf8) + body.reversed()
    }

    /// 64-bit FNV-1a as 16 lowercase hex digits (the library uses the first 16 for its ETags).
    static func tag(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3 }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// A JSON array of `count` small rules, like a content-blocker list.
    static func ruleBytes(tag: String, count: Int) -> [UInt8] {
        let rules = (0..<count).map {
            "{\"trigger\":{\"url-filter\":\"\(tag)-\($0)\"},\"action\":{\"type\":\"block\"}}"
        }
        return Array("[\(rules.joined(separator: ","))]".utf8)
    }

    /// A site with one large extra resource, larger than the loopback socket buffers on both sides
    /// together (~10 MB) by default, so a download is still in flight when the server changes.
    static func withBig(tag: UInt8, megabytes: Int = 24) -> (site: CoreSite, name: String, bytes: [UInt8]) {
        var site = CoreSite(generation: "gen-\(tag)")
        var big = [UInt8](repeating: 0x20 &+ tag, count: megabytes << 20)
        for index in stride(from: 0, to: big.count, by: 4093) { big[index] = UInt8(truncatingIfNeeded: index >> 12) }
        let name = "big-\(tag).json"
        site.add(name, big, encoded: false)
        return (site, name, big)
    }
}

/// Thread-safe flag for a helper thread to watch.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }
    func set() {
        lock.lock()
        stopped = true
        lock.unlock()
    }
}
