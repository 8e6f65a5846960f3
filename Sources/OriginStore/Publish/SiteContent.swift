import Foundation
import ListFormat

/// One generation of what the origin serves: the manifest plus every hashed file it may be asked
/// for (the current set and files still inside the grace period). Immutable, and swapped whole,
/// so each response comes entirely from one generation.
package struct SiteContent: Sendable {
    package struct Entry: Sendable, Equatable {
        /// Name as it appears in the URL path relative to the manifest, e.g. `network-00.0123456789ab.json`.
        package var name: String
        /// The identity representation.
        package var identity: [UInt8]
        /// The gzip representation, when one was published.
        package var gzip: [UInt8]?
        /// Lowercase hex SHA-256 of `identity`.
        package var sha256: String
        /// When the publisher wrote it; the source of Last-Modified.
        package var lastModified: Date
    }

    /// `manifest.json`; nil while no valid set exists (then /healthz answers 503).
    package var manifest: Entry?
    /// Hashed list files by name.
    package var files: [String: Entry]
    /// Manifest signatures by name (`signatures/<manifest sha256>.minisig`), immutable like list files.
    package var signatures: [String: Entry] = [:]

    package static let empty = SiteContent(manifest: nil, files: [:])

    /// The URL name the manifest is served under, whatever its entry's name says.
    package static let manifestName = "manifest.json"

    package init(manifest: Entry? = nil, files: [String: Entry], signatures: [String: Entry] = [:]) {
        self.manifest = manifest
        self.files = files
        self.signatures = signatures
    }
}
