import Foundation

/// One generation of what the origin serves: the manifest plus every hashed file it may be asked
/// for (the current set and files still inside the grace period). Immutable, and swapped whole,
/// so each response comes entirely from one generation.
struct SiteContent: Sendable {
    struct Entry: Sendable, Equatable {
        /// Name as it appears in the URL path relative to the manifest, e.g. `network-00.0123456789ab.json`.
        var name: String
        /// The identity representation.
        var identity: [UInt8]
        /// The gzip representation, when one was published.
        var gzip: [UInt8]?
        /// Lowercase hex SHA-256 of `identity`.
        var sha256: String
        /// When the publisher wrote it; the source of Last-Modified.
        var lastModified: Date
    }

    /// `manifest.json`; nil while no valid set exists (then /healthz answers 503).
    var manifest: Entry?
    /// Hashed list files by name.
    var files: [String: Entry]

    static let empty = SiteContent(manifest: nil, files: [:])
}
