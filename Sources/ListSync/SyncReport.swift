import Foundation

/// What one sync did: what it downloaded, what it reused, and which lists the device must
/// recompile in WebKit (the expensive part: seconds per list).
public struct SyncReport: Codable, Sendable, Equatable {
    public enum Outcome: String, Codable, Sendable {
        /// The manifest answered 304: nothing to do.
        case notModified = "not-modified"
        /// A manifest came back naming exactly the lists the device already holds.
        case unchanged
        /// A new set was applied.
        case updated
    }

    public struct DownloadedFile: Codable, Sendable, Equatable {
        public var id: String
        public var file: String
        public var sha256: String
        /// Body bytes that crossed the network (gzip size when the response was gzip).
        public var transferredBytes: Int
        /// Size of the verified list body.
        public var bytes: Int
        /// The dcz patch the list was rebuilt from; nil when the full file was fetched.
        public var patch: String? = nil
        /// Why a patch the manifest named was not used, when the full file was fetched instead.
        public var patchFallback: String? = nil
    }

    public var manifestURL: String
    public var outcome: Outcome
    /// HTTP status of the manifest request (200 or 304).
    public var manifestStatus: Int
    public var manifestTransferredBytes: Int
    /// Files fetched, in manifest order.
    public var downloaded: [DownloadedFile]
    /// Manifest entries already held by hash and not fetched again.
    public var reusedFiles: Int
    /// Lists that are new or whose hash changed: each costs the device a WebKit compile.
    public var recompile: [String]
    /// List ids the previous manifest named and the new one does not.
    public var removedLists: [String]
    /// Stored bodies deleted because the new manifest no longer names them.
    public var removedFiles: Int
    /// Hosts where the app turns blocking off (swaps the web view's lists out before a main-frame
    /// navigation to one of them or a subdomain); from the manifest, no compile needed.
    public var unprotectedSites: [String] = []
    /// True when `unprotectedSites` differ from the previous manifest's.
    public var unprotectedSitesChanged = false

    /// Everything that crossed the network: manifest plus list bodies.
    public var transferredBytes: Int {
        manifestTransferredBytes + downloaded.reduce(0) { $0 + $1.transferredBytes }
    }

    public var downloadedBytes: Int { downloaded.reduce(0) { $0 + $1.bytes } }

    /// Bytes transferred as dcz patches, and as full list files.
    public var patchTransferredBytes: Int {
        downloaded.filter { $0.patch != nil }.reduce(0) { $0 + $1.transferredBytes }
    }
    public var fullFileTransferredBytes: Int {
        downloaded.filter { $0.patch == nil }.reduce(0) { $0 + $1.transferredBytes }
    }

    /// A few lines for a person: what was fetched and what must be recompiled.
    public var summary: String {
        var lines: [String] = []
        switch outcome {
        case .notModified:
            lines.append("manifest \(manifestURL): 304 not modified; nothing to do")
            return lines.joined(separator: "\n")
        case .unchanged:
            lines.append("manifest \(manifestURL): 200, \(manifestTransferredBytes) bytes; same lists as before")
        case .updated:
            lines.append("manifest \(manifestURL): 200, \(manifestTransferredBytes) bytes; new set applied")
        }
        lines.append(
            "downloaded \(downloaded.count) files: \(transferredBytes - manifestTransferredBytes) bytes transferred, \(downloadedBytes) bytes of lists; reused \(reusedFiles) held files"
        )
        lines.append(
            "through patches: \(patchTransferredBytes) bytes; through full files: \(fullFileTransferredBytes) bytes")
        for file in downloaded {
            let via = file.patch.map { " via \($0)" } ?? ""
            let fallback = file.patchFallback.map { " (patch not used: \($0))" } ?? ""
            lines.append(
                "  \(file.id)  \(file.file)  \(file.transferredBytes) transferred, \(file.bytes) bytes\(via)\(fallback)"
            )
        }
        lines.append("total transferred: \(transferredBytes) bytes")
        lines.append(
            "lists to recompile: \(recompile.count)"
                + (recompile.isEmpty ? "" : " (\(recompile.joined(separator: ", ")))"))
        if unprotectedSitesChanged || !unprotectedSites.isEmpty {
            lines.append(
                "unprotected sites\(unprotectedSitesChanged ? " (changed)" : ""): \(unprotectedSites.isEmpty ? "none" : unprotectedSites.joined(separator: ", "))"
            )
        }
        if !removedLists.isEmpty {
            lines.append("lists removed: \(removedLists.joined(separator: ", "))")
        }
        lines.append("removed \(removedFiles) files no longer named")
        return lines.joined(separator: "\n")
    }
}
