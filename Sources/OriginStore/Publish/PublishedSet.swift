import Converter
import DictionaryPatchOrigin
import Foundation
import ListFormat

/// The set a directory serves: its manifest, every file that manifest names plus the older files
/// still inside their grace period (all as served bytes), and the layout state it was built with.
/// A publish turns one `PublishedSet` into the next in memory; only a start reads one from disk.
package struct PublishedSet: Sendable {
    /// The directory the set lives in.
    package var directory: String
    package var manifest: Manifest
    /// What the HTTP layer serves: the manifest entry and every hashed file by name.
    package var content: SiteContent
    /// The converter's layout state (`layout.json` beside the manifest), nil when unreadable.
    package var layoutState: [UInt8]?

    package var manifestSHA256: String? { content.manifest?.sha256 }

    /// The list bytes of the current manifest by id: what the converter may keep unchanged.
    package var listBytesByID: [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        for entry in manifest.lists {
            if let file = content.files[entry.file] { out[entry.id] = file.identity }
        }
        return out
    }

    /// The manifest entry as served: its gzip form lives only in memory, derived from the manifest
    /// bytes deterministically, so every origin serves the same bytes and no second file can lag behind.
    static func manifestEntry(_ bytes: [UInt8], sha256: String, lastModified: Date) -> SiteContent.Entry {
        SiteContent.Entry(
            name: PublishPlan.manifestName, identity: bytes, gzip: try? Gzip.compress(bytes),
            sha256: sha256, lastModified: lastModified)
    }

    package init(directory: String, manifest: Manifest, content: SiteContent, layoutState: [UInt8]? = nil) {
        self.directory = directory
        self.manifest = manifest
        self.content = content
        self.layoutState = layoutState
    }
}

/// Reads a published set back from a directory: the restart path (and `convert --previous`). Every
/// file the manifest names is checked against its hash, once, here.
package struct PublishedSetLoader: Sendable {
    package enum LoadError: Error, CustomStringConvertible, Equatable {
        case noManifest(String)
        case badManifest(String, String)
        case missingFile(String)
        case hashMismatch(String)

        package var description: String {
            switch self {
            case .noManifest(let dir): return "\(dir) holds no manifest.json yet"
            case .badManifest(let path, let reason): return "\(path) is not a format-1 manifest (\(reason))"
            case .missingFile(let path): return "the manifest names \(path), which is missing"
            case .hashMismatch(let path): return "\(path) does not match the hash the manifest gives"
            }
        }
    }

    package var writer: SetWriter
    /// Files only older manifests name are loaded while younger than this (seconds since superseded).
    package var gracePeriod: Double
    /// False (for `convert --previous`): a missing or damaged list file is left out, not an error.
    package var strict = true
    /// True for a follower: every file's Last-Modified is its mtime, which the follower set to the
    /// primary's Last-Modified, so both origins answer conditional requests alike, also after a restart.
    package var datesFromFiles = false

    /// Loads the set; throws when the manifest is missing or (strict) names a file that is not intact.
    package func load(history: [PersistentState.PublishRecord], now: Date = Date()) throws -> PublishedSet {
        let manifestPath = writer.path(PublishPlan.manifestName)
        guard let manifestData = FileManager.default.contents(atPath: manifestPath) else {
            throw LoadError.noManifest(writer.directory)
        }
        var manifest: Manifest
        do {
            manifest = try ManifestLists.decode(manifestData)
        } catch {
            guard case .badManifest(let reason) = error else { throw LoadError.badManifest(manifestPath, "\(error)") }
            throw LoadError.badManifest(manifestPath, reason)
        }
        DerivedPatchFiles.fill(&manifest, directory: writer.directory)
        var firstPublished: [String: Date] = [:]
        for record in history {
            for file in record.files where firstPublished[file] == nil { firstPublished[file] = record.publishedAt }
        }
        let manifestBytes = Array(manifestData)
        let manifestHash = SHA256Digest.hex(of: manifestBytes)
        let manifestDate =
            datesFromFiles
            ? modificationDate(manifestPath)
            : history.last(where: { $0.manifestSHA256 == manifestHash })?.publishedAt ?? modificationDate(manifestPath)

        // Current files must match the manifest's hashes; older files must match the hash in their name.
        if strict, let entry = manifest.lists.first(where: { !ManifestLists.isInsideSet($0.file) }) {
            throw LoadError.badManifest(
                manifestPath, "list \(entry.id) names the file \"\(entry.file)\" outside its directory")
        }
        var names = manifest.lists.map(\.file).filter(ManifestLists.isInsideSet)
        var wantedHash: [String: String] = [:]
        for entry in manifest.lists { wantedHash[entry.file] = entry.sha256 }
        var current = Set(names.flatMap { [$0, $0 + ".gz"] })
        // Patches the manifest names: each must be intact too (strict), like the lists they lead to.
        for patch in manifest.lists.flatMap({ $0.patches ?? [] }) where PatchFileName.isPatchFileName(patch.file) {
            names.append(patch.file)
            current.insert(patch.file)
            wantedHash[patch.file] = patch.sha256
        }
        let retention = Retention(writer: writer, gracePeriod: gracePeriod)
        for (name, retiredAt) in retention.retiredFiles(keeping: current, history: history)
        where !name.hasSuffix(".gz") && now.timeIntervalSince(retiredAt) <= gracePeriod {
            names.append(name)
        }
        let read: [(identity: [UInt8], gzip: [UInt8]?, sha256: String)?] = Parallel.map(names.count) { index in
            let path = writer.path(names[index])
            guard let data = FileManager.default.contents(atPath: path) else { return nil }
            let identity = Array(data)
            return (
                identity, FileManager.default.contents(atPath: path + ".gz").map { Array($0) },
                SHA256Digest.hex(of: identity)
            )
        }
        var files: [String: SiteContent.Entry] = [:]
        for (index, name) in names.enumerated() {
            let path = writer.path(name)
            let wanted = wantedHash[name]
            guard let file = read[index] else {
                if wanted != nil, strict { throw LoadError.missingFile(path) }
                continue
            }
            if let wanted {
                guard file.sha256 == wanted else {
                    if strict { throw LoadError.hashMismatch(path) }
                    continue
                }
            } else if !PatchFileName.isPatchFileName(name),
                !name.contains(".\(file.sha256.prefix(PublishPlan.hashPrefixLength)).")
            {
                continue
            }
            let gzip = PatchFileName.isPatchFileName(name) ? nil : file.gzip
            files[name] = SiteContent.Entry(
                name: name, identity: file.identity, gzip: gzip, sha256: file.sha256,
                lastModified: (datesFromFiles ? nil : firstPublished[name]) ?? modificationDate(path))
        }
        let layout = FileManager.default.contents(atPath: writer.path(PublishPlan.layoutName)).map { Array($0) }
        let entry = PublishedSet.manifestEntry(manifestBytes, sha256: manifestHash, lastModified: manifestDate)
        var content = SiteContent(manifest: entry, files: files)
        content.signatures = writer.loadSignatures()
        if !datesFromFiles {
            // A signature's Last-Modified is when its manifest was first published (as served
            // before the restart), not the file's mtime.
            for name in content.signatures.keys {
                let hash = PublishedSignature.manifestSHA256(
                    inFileName: String(name.dropFirst(PublishedSignature.directoryName.count + 1)))
                if let published = history.first(where: { $0.manifestSHA256 == hash })?.publishedAt {
                    content.signatures[name]?.lastModified = published
                }
            }
        }
        return PublishedSet(directory: writer.directory, manifest: manifest, content: content, layoutState: layout)
    }

    private func modificationDate(_ path: String) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? Date()
    }

    package init(writer: SetWriter, gracePeriod: Double, strict: Bool = true, datesFromFiles: Bool = false) {
        self.writer = writer
        self.gracePeriod = gracePeriod
        self.strict = strict
        self.datesFromFiles = datesFromFiles
    }
}
