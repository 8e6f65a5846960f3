import Foundation

/// What a device last synced completely: the manifest it applied and the validator to revalidate it.
/// Written only after every file the manifest names is in the store, so it always describes a
/// usable set.
public struct SyncState: Codable, Sendable, Equatable {
    /// The manifest URL this state came from; a different URL starts over without `If-None-Match`.
    public var manifestURL: String
    /// The manifest response's ETag, sent back as `If-None-Match` (RFC 9110 §13.1.2).
    public var etag: String?
    public var manifest: Manifest
    public var syncedAt: Date

    public init(manifestURL: String, etag: String?, manifest: Manifest, syncedAt: Date) {
        self.manifestURL = manifestURL
        self.etag = etag
        self.manifest = manifest
        self.syncedAt = syncedAt
    }
}
