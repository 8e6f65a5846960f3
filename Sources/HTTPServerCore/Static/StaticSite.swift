import Foundation

/// One generation of static resources turned into ready-to-send bytes at install time: every
/// response head for every resource and representation is built once here, so serving a request
/// only picks segments and never formats a header. Immutable; the server swaps it whole.
public final class StaticSite: @unchecked Sendable {
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

    /// A `dcz` representation and the dictionary it needs, as the base64 text of its SHA-256
    /// without padding (what `Available-Dictionary` carries, compared without decoding).
    struct DictionaryVariant {
        let dictionaryBase64: [UInt8]
        let representation: Representation
    }

    public final class Resource: @unchecked Sendable {
        /// What the application handed over.
        public let source: StaticResource
        let identity: Representation
        let gzip: Representation?
        let dictionaryVariants: [DictionaryVariant]
        /// Identity head without Content-Length, for 206 answers that add their own length/range.
        let rangeHeadPrefix: ResponseBytes
        /// `Vary: …\r\n`, for the error answers that format their head per request.
        let varyLine: String
        let lastModified: Int

        init(_ source: StaticResource) {
            self.source = source
            let tag = String(source.sha256.prefix(16))
            lastModified = Int(source.lastModified.timeIntervalSince1970.rounded(.down))
            let date = String(decoding: HTTPDate.format(lastModified), as: UTF8.self)
            varyLine = "Vary: \(source.vary)\r\n"
            let common = "Last-Modified: \(date)\r\nCache-Control: \(source.cacheControl.value)\r\n" + varyLine
            let extraLines = source.fields.headLines
            // Each encoding gets its own tag because its bytes differ (RFC 9110 §8.8.3).
            func representation(_ body: [UInt8], etag: String, encoding: String?) -> Representation {
                var head = "Content-Type: \(source.contentType)\r\nContent-Length: \(body.count)\r\n"
                if let encoding { head += "Content-Encoding: \(encoding)\r\n" }
                head += "ETag: \(etag)\r\n" + common + extraLines + "Accept-Ranges: bytes\r\n"
                return Representation(
                    body: ResponseBytes(sharing: body),
                    file: body.count >= FileBody.minimumSize ? FileBody(body, name: source.name) : nil,
                    head200: ResponseBytes(head),
                    head304: ResponseBytes("ETag: \(etag)\r\n" + common), etag: Array(etag.utf8))
            }
            identity = representation(source.identity, etag: "\"\(tag)\"", encoding: nil)
            gzip = source.gzip.map { representation($0, etag: "\"\(tag)-gz\"", encoding: "gzip") }
            dictionaryVariants = source.dictionaryCompressed.map { compressed in
                let dictionaryTag = compressed.dictionarySHA256.prefix(6).map { String(format: "%02x", $0) }.joined()
                return DictionaryVariant(
                    dictionaryBase64: Array(
                        Data(compressed.dictionarySHA256).base64EncodedString().utf8.filter { $0 != 0x3D }),
                    representation: representation(
                        compressed.body, etag: "\"\(tag)-dcz-\(dictionaryTag)\"", encoding: "dcz"))
            }
            rangeHeadPrefix = ResponseBytes(
                "Content-Type: \(source.contentType)\r\nETag: \"\(tag)\"\r\n" + common + extraLines
                    + "Accept-Ranges: bytes\r\n")
        }

        /// The `dcz` representation for the dictionary an `Available-Dictionary` value names, if any.
        func dictionaryVariant(offered value: UnsafeBufferPointer<UInt8>) -> Representation? {
            guard !dictionaryVariants.isEmpty, let content = AvailableDictionaryField.base64Content(value) else {
                return nil
            }
            for variant in dictionaryVariants where variant.dictionaryBase64.elementsEqual(content) {
                return variant.representation
            }
            return nil
        }
    }

    /// Every resource by the exact URL name bytes.
    let resources: [[UInt8]: Resource]
    /// The same resources, looked up straight from request bytes.
    let table: ResourceTable

    public init(resources: [StaticResource]) {
        var prepared: [[UInt8]: Resource] = [:]
        for resource in resources { prepared[Array(resource.name.utf8)] = Resource(resource) }
        self.resources = prepared
        table = ResourceTable(prepared)
    }

    /// The resource a decoded request path names exactly, if any.
    public func resource(named name: UnsafeBufferPointer<UInt8>) -> Resource? {
        table.lookup(name)
    }

    public func resource(named name: String) -> Resource? {
        resources[Array(name.utf8)]
    }

    /// What was installed, in no particular order.
    public var sources: [StaticResource] { resources.values.map(\.source) }
}

/// Exact-name lookup straight from request bytes: a `[[UInt8]: Resource]` lookup would need a
/// key array built per request. Open addressing over a power-of-two table kept at most half full;
/// the names are our own published names, so probe runs stay short whatever a client asks for.
struct ResourceTable {
    private let slots: [(name: [UInt8], resource: StaticSite.Resource)?]
    private let mask: Int

    init(_ entries: [[UInt8]: StaticSite.Resource]) {
        var size = 8
        while size < entries.count * 2 { size *= 2 }
        var slots = [(name: [UInt8], resource: StaticSite.Resource)?](repeating: nil, count: size)
        for (name, resource) in entries {
            var index = name.withUnsafeBufferPointer { Self.hash($0) } & (size - 1)
            while slots[index] != nil { index = (index + 1) & (size - 1) }
            slots[index] = (name, resource)
        }
        self.slots = slots
        mask = size - 1
    }

    func lookup(_ name: UnsafeBufferPointer<UInt8>) -> StaticSite.Resource? {
        var index = Self.hash(name) & mask
        while let slot = slots[index] {
            if slot.name.count == name.count,
                name.isEmpty
                    || slot.name.withUnsafeBufferPointer({ memcmp($0.baseAddress!, name.baseAddress!, name.count) == 0 }
                    )
            {
                return slot.resource
            }
            index = (index + 1) & mask
        }
        return nil
    }

    /// FNV-1a, 64-bit: short names, no allocation, and nothing to share with other modules.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return Int(truncatingIfNeeded: hash >> 1)
    }
}
