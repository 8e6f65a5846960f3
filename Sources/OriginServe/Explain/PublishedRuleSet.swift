import ContentBlockerEngine
import Foundation
import ListFormat
import OriginStore
import PublicSuffix

/// A published set read back for explaining: the manifest's lists, in its order, each checked
/// against its SHA-256, so an answer is about exactly what devices download.
package struct PublishedRuleSet {
    package var directory: String
    package var manifestSHA256: String
    package var lists: [(id: String, json: [UInt8])]
    /// Each list's SHA-256 by id, as the manifest gives it (and the file has).
    package var listSHA256: [String: String] = [:]

    package static func load(directory: String) throws -> PublishedRuleSet {
        let manifestPath = URL(fileURLWithPath: directory).appendingPathComponent(PublishedFileNames.manifest).path
        guard let manifestData = FileManager.default.contents(atPath: manifestPath) else {
            throw ExplainError.noManifest(directory)
        }
        do {
            let manifest = try ManifestLists.decode(manifestData)
            let lists = try ManifestLists.verifiedLists(manifest) { file in
                FileManager.default.contents(atPath: URL(fileURLWithPath: directory).appendingPathComponent(file).path)
                    .map { (Array($0), SHA256Digest.hex(of: $0)) }
            }
            let hashes = Dictionary(manifest.lists.map { ($0.id, $0.sha256) }, uniquingKeysWith: { first, _ in first })
            return PublishedRuleSet(
                directory: directory, manifestSHA256: SHA256Digest.hex(of: manifestData), lists: lists,
                listSHA256: hashes)
        } catch {
            throw ExplainError(error, manifestPath: manifestPath, directory: directory)
        }
    }

    package func engine(
        registrableDomains: any RegistrableDomainProvider, indexing: ContentBlockerEngine.Indexing = .trigram
    ) throws -> ContentBlockerEngine {
        do {
            return try ContentBlockerEngine(lists: lists, registrableDomains: registrableDomains, indexing: indexing)
        } catch {
            throw ExplainError.badList(error)
        }
    }
}
