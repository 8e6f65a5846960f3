import Foundation

/// Checks a downloaded manifest before anything is fetched on its word.
enum ManifestValidator {
    /// Decodes format 1; any other format is refused, since its meaning is unknown to this client.
    static func decode(_ body: Data, url: String) throws -> Manifest {
        struct FormatProbe: Decodable { var format: Int }
        let decoder = JSONDecoder()
        let format: Int
        do {
            format = try decoder.decode(FormatProbe.self, from: body).format
        } catch {
            throw SyncError.manifestUnreadable(url: url, reason: "no integer \"format\" field (\(body.count) bytes)")
        }
        guard format == 1 else { throw SyncError.unknownManifestFormat(url: url, format: format) }
        let manifest: Manifest
        do {
            manifest = try Manifest.decode(body)
        } catch {
            throw SyncError.manifestUnreadable(url: url, reason: "\(error)")
        }
        var ids = Set<String>()
        for entry in manifest.lists {
            guard !entry.id.isEmpty, ids.insert(entry.id).inserted else {
                throw SyncError.invalidManifestEntry(url: url, reason: "list id \"\(entry.id)\" is empty or repeated")
            }
            guard SHA256Digest.isWellFormedHex(entry.sha256) else {
                throw SyncError.invalidManifestEntry(
                    url: url, reason: "list \(entry.id): sha256 \"\(entry.sha256)\" is not 64 lowercase hex digits")
            }
            guard entry.rules >= 0 else {
                throw SyncError.invalidManifestEntry(url: url, reason: "list \(entry.id): negative rule count")
            }
        }
        return manifest
    }

    /// Resolves each `file` against the manifest URL (RFC 3986 §5.2), keeping http(s) only.
    static func resolveFiles(_ manifest: Manifest, against base: URL) throws -> [URL] {
        try manifest.lists.map { entry in
            guard !entry.file.isEmpty, let url = URL(string: entry.file, relativeTo: base)?.absoluteURL,
                let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
            else {
                throw SyncError.invalidManifestEntry(
                    url: base.absoluteString,
                    reason: "list \(entry.id): file \"\(entry.file)\" does not resolve to an http(s) URL")
            }
            return url
        }
    }
}
