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
    /// The whole Cache-Control value, e.g. `public, max-age=31536000, immutable`.
    public var cacheControl: String
    public var contentType: String

    public init(name: String, identity: [UInt8], gzip: [UInt8]?, sha256: String, lastModified: Date, cacheControl: String,
                contentType: String = "application/json") {
        self.name = name
        self.identity = identity
        self.gzip = gzip
        self.sha256 = sha256
        self.lastModified = lastModified
        self.cacheControl = cacheControl
        self.contentType = contentType
    }
}
