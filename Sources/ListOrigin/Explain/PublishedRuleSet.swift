import ContentBlockerEngine
import Foundation
import ListFormat

/// A published set read back for explaining: the manifest's lists, in its order, each checked
/// against its SHA-256, so an answer is about exactly what devices download.
struct PublishedRuleSet {
    var directory: String
    var manifestSHA256: String
    var lists: [(id: String, json: [UInt8])]
    /// Each list's SHA-256 by id, as the manifest gives it (and the file has).
    var listSHA256: [String: String] = [:]

    static func load(directory: String) throws -> PublishedRuleSet {
        let manifestPath = URL(fileURLWithPath: directory).appendingPathComponent("manifest.json").path
        guard let manifestData = FileManager.default.contents(atPath: manifestPath) else {
            throw ExplainError.noManifest(directory)
        }
        let manifest: Manifest
        do {
            manifest = try JSONDecoder().decode(Manifest.self, from: manifestData)
        } catch {
            throw ExplainError.badManifest(manifestPath, reason: "\(error)")
        }
        guard manifest.format == 1 else { throw ExplainError.badManifest(manifestPath, reason: "format \(manifest.format)") }
        var lists: [(id: String, json: [UInt8])] = []
        var hashes: [String: String] = [:]
        for entry in manifest.lists {
            guard !entry.file.contains("/"), !entry.file.hasPrefix(".") else {
                throw ExplainError.badManifest(manifestPath, reason: "list \(entry.id) names a file outside the set: \(entry.file)")
            }
            let path = URL(fileURLWithPath: directory).appendingPathComponent(entry.file).path
            guard let data = FileManager.default.contents(atPath: path) else { throw ExplainError.listUnreadable(entry.id, path: path) }
            let actual = SHA256Digest.hex(of: data)
            guard actual == entry.sha256 else { throw ExplainError.hashMismatch(entry.id, expected: entry.sha256, actual: actual) }
            lists.append((entry.id, Array(data)))
            hashes[entry.id] = actual
        }
        return PublishedRuleSet(directory: directory, manifestSHA256: SHA256Digest.hex(of: manifestData), lists: lists, listSHA256: hashes)
    }

    func engine(registrableDomains: any RegistrableDomainProvider, indexing: ContentBlockerEngine.Indexing = .trigram) throws -> ContentBlockerEngine {
        do {
            return try ContentBlockerEngine(lists: lists, registrableDomains: registrableDomains, indexing: indexing)
        } catch {
            throw ExplainError.badList(error)
        }
    }
}
