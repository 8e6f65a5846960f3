import Foundation
import OriginConfig

extension StateStore {
    package static let unprotectedSitesFile = "unprotected-sites.json"
    package var unprotectedSitesPath: String { directory + "/" + Self.unprotectedSitesFile }

    /// The admin endpoint's edits; none when the file does not exist yet.
    package func loadUnprotectedSiteEdits() throws(StateError) -> UnprotectedSiteEdits {
        guard FileManager.default.fileExists(atPath: unprotectedSitesPath) else { return UnprotectedSiteEdits() }
        guard let data = FileManager.default.contents(atPath: unprotectedSitesPath) else {
            throw .unreadable(path: unprotectedSitesPath, reason: "permission denied")
        }
        let edits: UnprotectedSiteEdits
        do {
            edits = try JSONDecoder().decode(UnprotectedSiteEdits.self, from: data)
        } catch {
            throw .unreadable(path: unprotectedSitesPath, reason: "not an unprotected-sites file: \(error)")
        }
        if edits.version > UnprotectedSiteEdits.currentVersion {
            throw .newerVersion(
                path: unprotectedSitesPath, found: edits.version, supported: UnprotectedSiteEdits.currentVersion)
        }
        return edits
    }

    package func saveUnprotectedSiteEdits(_ edits: UnprotectedSiteEdits) throws(StateError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try write(Array((try? encoder.encode(edits)) ?? Data()), to: unprotectedSitesPath)
    }
}
