import Foundation
import ListSync

/// Builds the served generation from the public directory, without converting anything: the
/// manifest, every file it names (checked against its hash), and the files still inside the grace
/// period. This is how a restart serves the last published set within a second.
struct SiteContentLoader: Sendable {
    enum LoadError: Error, CustomStringConvertible, Equatable {
        case noManifest(String)
        case badManifest(String, String)
        case missingFile(String)
        case hashMismatch(String)

        var description: String {
            switch self {
            case .noManifest(let dir): return "\(dir) holds no manifest.json yet"
            case .badManifest(let path, let reason): return "\(path) is not a format-1 manifest (\(reason))"
            case .missingFile(let path): return "the manifest names \(path), which is missing"
            case .hashMismatch(let path): return "\(path) does not match the hash the manifest gives"
            }
        }
    }

    var publisher: Publisher

    /// Loads the set; throws when the manifest is missing or names a file that is not intact.
    func load(history: [PersistentState.PublishRecord], now: Date = Date()) throws -> (SiteContent, Manifest) {
        let writer = publisher.writer
        let manifestPath = writer.path(PublishPlan.manifestName)
        guard let manifestData = FileManager.default.contents(atPath: manifestPath) else { throw LoadError.noManifest(writer.directory) }
        let manifest: Manifest
        do {
            manifest = try JSONDecoder().decode(Manifest.self, from: manifestData)
        } catch {
            throw LoadError.badManifest(manifestPath, "\(error)")
        }
        guard manifest.format == 1 else { throw LoadError.badManifest(manifestPath, "format \(manifest.format)") }
        var firstPublished: [String: Date] = [:]
        for record in history {
            for file in record.files where firstPublished[file] == nil { firstPublished[file] = record.publishedAt }
        }
        let manifestHash = SHA256.hex(manifestData)
        let manifestDate = history.last(where: { $0.manifestSHA256 == manifestHash })?.publishedAt ?? modificationDate(manifestPath)
        var files: [String: SiteContent.Entry] = [:]
        var current = Set<String>()
        for list in manifest.lists {
            let path = writer.path(list.file)
            guard let data = FileManager.default.contents(atPath: path) else { throw LoadError.missingFile(path) }
            let identity = Array(data)
            guard SHA256.hex(identity) == list.sha256 else { throw LoadError.hashMismatch(path) }
            let gzip = FileManager.default.contents(atPath: path + ".gz").map { Array($0) }
            files[list.file] = SiteContent.Entry(name: list.file, identity: identity, gzip: gzip, sha256: list.sha256,
                                                 lastModified: firstPublished[list.file] ?? modificationDate(path))
            current.insert(list.file)
            current.insert(list.file + ".gz")
        }
        // Older files still inside the grace period: CDNs and slow devices may still ask for them.
        for (name, retiredAt) in publisher.retiredFiles(keeping: current, history: history)
        where !name.hasSuffix(".gz") && now.timeIntervalSince(retiredAt) <= publisher.gracePeriod {
            let path = writer.path(name)
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let identity = Array(data)
            let hash = SHA256.hex(identity)
            guard name.contains(".\(hash.prefix(PublishPlan.hashPrefixLength)).") else { continue }
            files[name] = SiteContent.Entry(name: name, identity: identity,
                                            gzip: FileManager.default.contents(atPath: path + ".gz").map { Array($0) },
                                            sha256: hash, lastModified: firstPublished[name] ?? modificationDate(path))
        }
        // The manifest's gzip form lives only in memory: it is derived from the manifest bytes
        // deterministically, so every origin serves the same bytes, and no second file can lag behind.
        let manifestBytes = Array(manifestData)
        let entry = SiteContent.Entry(name: PublishPlan.manifestName, identity: manifestBytes, gzip: try? Gzip.compress(manifestBytes),
                                      sha256: manifestHash, lastModified: manifestDate)
        return (SiteContent(manifest: entry, files: files), manifest)
    }

    private func modificationDate(_ path: String) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? Date()
    }
}
