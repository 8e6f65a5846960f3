import Foundation

/// One named static resource as the application hands it over: its bytes, an optional gzip
/// sibling, and what its headers are made from.
public struct StaticResource: Sendable, Equatable {
    /// The exact name a request path must decode to (without the leading slash).
    public var name: String
    public var identity: [UInt8]
    public var gzip: [UInt8]?
    /// Lowercase hex SHA-256 of `identity`; its first 16 digits make the ETag, so tags survive
    /// restarts and agree across origins.
    public var sha256: String
    /// The source of Last-Modified.
    public var lastModified: Date
    public var cacheControl: CacheControl
    public var contentType: String
    /// The whole Vary value on every answer for this resource (304s and errors included).
    public var vary: String
    /// More fields for 200 and 206 answers, e.g. `Use-As-Dictionary`.
    public var fields: [HTTPField]
    /// RFC 9842 `dcz` bodies, one per dictionary a client may offer in `Available-Dictionary`.
    public var dictionaryCompressed: [DictionaryCompressedBody]

    public init(
        name: String, identity: [UInt8], gzip: [UInt8]?, sha256: String, lastModified: Date, cacheControl: CacheControl,
        contentType: String = "application/json", vary: String = "Accept-Encoding", fields: [HTTPField] = [],
        dictionaryCompressed: [DictionaryCompressedBody] = []
    ) {
        self.name = name
        self.identity = identity
        self.gzip = gzip
        self.sha256 = sha256
        self.lastModified = lastModified
        self.cacheControl = cacheControl
        self.contentType = contentType
        self.vary = vary
        self.fields = fields
        self.dictionaryCompressed = dictionaryCompressed
    }
}

/// The resource compressed against one dictionary, with the RFC 9842 `dcz` content coding: served
/// when a request's `Available-Dictionary` names `dictionarySHA256` and `Accept-Encoding` allows `dcz`.
public struct DictionaryCompressedBody: Sendable, Equatable {
    /// The 32-byte SHA-256 of the dictionary (the `dcz` header repeats it).
    public var dictionarySHA256: [UInt8]
    /// The whole `dcz` body: the 40-byte header, then the zstd frame.
    public var body: [UInt8]

    public init(dictionarySHA256: [UInt8], body: [UInt8]) {
        self.dictionarySHA256 = dictionarySHA256
        self.body = body
    }
}
