import Converter
import Foundation

/// One `SiteContent` generation turned into ready-to-send bytes at `install` time: every response
/// head for every resource and representation is built once here, so serving a request only
/// picks segments and never formats a header.
final class PreparedSite: @unchecked Sendable {
    /// One encoding of a resource with its precomputed header blocks (lines after the status line
    /// and Date; the Connection line and the blank line are appended per connection).
    struct Representation {
        let body: ResponseBytes
        /// The same bytes in a memory file for sendfile, for bodies of `FileBody.minimumSize` or more.
        let file: FileBody?
        let head200: ResponseBytes
        let head304: ResponseBytes
        /// The quoted strong entity-tag, e.g. `"0123456789abcdef-gz"`.
        let etag: [UInt8]
    }

    final class Resource: @unchecked Sendable {
        let identity: Representation
        let gzip: Representation?
        /// Identity head without Content-Length, for 206 answers that add their own length/range.
        let rangeHeadPrefix: ResponseBytes
        let lastModified: Int

        init(identity: Representation, gzip: Representation?, rangeHeadPrefix: ResponseBytes, lastModified: Int) {
            self.identity = identity
            self.gzip = gzip
            self.rangeHeadPrefix = rangeHeadPrefix
            self.lastModified = lastModified
        }
    }

    let content: SiteContent
    let manifest: Resource?
    /// Hashed files by the exact URL name bytes.
    let files: [[UInt8]: Resource]
    /// The same files, looked up straight from request bytes.
    let table: ResourceTable

    init(_ content: SiteContent, configuration: Configuration.HTTP) {
        self.content = content
        let manifestCache = "public, max-age=\(configuration.manifestMaxAgeSeconds), "
            + "stale-while-revalidate=\(configuration.manifestStaleWhileRevalidateSeconds), "
            + "stale-if-error=\(configuration.manifestStaleIfErrorSeconds)"
        manifest = content.manifest.map { Self.prepare($0, cacheControl: manifestCache) }
        var files: [[UInt8]: Resource] = [:]
        for (name, entry) in content.files {
            files[Array(name.utf8)] = Self.prepare(entry, cacheControl: "public, max-age=31536000, immutable")
        }
        self.files = files
        table = ResourceTable(files)
    }

    /// ETags come from the content hash, so they survive restarts and agree across origins; the
    /// gzip representation gets its own tag because its bytes differ (RFC 9110 §8.8.3).
    private static func prepare(_ entry: SiteContent.Entry, cacheControl: String) -> Resource {
        let tag = String(entry.sha256.prefix(16))
        let lastModified = Int(entry.lastModified.timeIntervalSince1970.rounded(.down))
        let date = String(decoding: HTTPDate.format(lastModified), as: UTF8.self)
        func representation(_ body: [UInt8], etag: String, encoding: String?) -> Representation {
            let common = "ETag: \(etag)\r\nLast-Modified: \(date)\r\nCache-Control: \(cacheControl)\r\nVary: Accept-Encoding\r\n"
            var head = "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
            if let encoding { head += "Content-Encoding: \(encoding)\r\n" }
            head += common + "Accept-Ranges: bytes\r\n"
            return Representation(
                body: ResponseBytes(sharing: body),
                file: body.count >= FileBody.minimumSize ? FileBody(body, name: entry.name) : nil, head200: ResponseBytes(head), head304: ResponseBytes(common), etag: Array(etag.utf8))
        }
        let identity = representation(entry.identity, etag: "\"\(tag)\"", encoding: nil)
        let gzip = entry.gzip.map { representation($0, etag: "\"\(tag)-gz\"", encoding: "gzip") }
        let rangePrefix = "Content-Type: application/json\r\nETag: \"\(tag)\"\r\nLast-Modified: \(date)\r\n"
            + "Cache-Control: \(cacheControl)\r\nVary: Accept-Encoding\r\nAccept-Ranges: bytes\r\n"
        return Resource(identity: identity, gzip: gzip, rangeHeadPrefix: ResponseBytes(rangePrefix), lastModified: lastModified)
    }
}

/// Exact-name lookup straight from request bytes: a `[[UInt8]: Resource]` lookup would need a
/// key array built per request. Open addressing over a power-of-two table kept at most half full;
/// the names are our own published names, so probe runs stay short whatever a client asks for.
struct ResourceTable {
    private let slots: [(name: [UInt8], resource: PreparedSite.Resource)?]
    private let mask: Int

    init(_ entries: [[UInt8]: PreparedSite.Resource]) {
        var size = 8
        while size < entries.count * 2 { size *= 2 }
        var slots = [(name: [UInt8], resource: PreparedSite.Resource)?](repeating: nil, count: size)
        for (name, resource) in entries {
            var index = name.withUnsafeBufferPointer { Self.hash($0) } & (size - 1)
            while slots[index] != nil { index = (index + 1) & (size - 1) }
            slots[index] = (name, resource)
        }
        self.slots = slots
        mask = size - 1
    }

    func lookup(_ name: UnsafeBufferPointer<UInt8>) -> PreparedSite.Resource? {
        var index = Self.hash(name) & mask
        while let slot = slots[index] {
            if slot.name.count == name.count, name.isEmpty || slot.name.withUnsafeBufferPointer({ memcmp($0.baseAddress!, name.baseAddress!, name.count) == 0 }) {
                return slot.resource
            }
            index = (index + 1) & mask
        }
        return nil
    }

    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        Int(truncatingIfNeeded: FNV1a.hash(bytes) >> 1)
    }
}
