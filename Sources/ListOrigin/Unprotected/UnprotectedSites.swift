import Converter
import Foundation

/// The sites where devices turn blocking off: the config's `unprotectedSites` plus what the admin
/// endpoint added, minus what it removed. The edits live in the state directory, so a restart keeps
/// them and a site the config names can still be switched back on at runtime.
struct UnprotectedSiteEdits: Codable, Sendable, Equatable {
    static let currentVersion = 1
    var version = Self.currentVersion
    var added: [String] = []
    var removed: [String] = []

    /// What the manifest carries: normalised hosts, sorted, each once.
    func effective(configured: [String]) -> [String] {
        Array(Set(configured).union(added).subtracting(removed)).sorted()
    }

    /// Records one admin change (hosts already normalised). An add undoes an earlier remove and back.
    mutating func apply(_ change: UnprotectedSiteChange) {
        switch change {
        case .add(let host):
            removed.removeAll { $0 == host }
            if !added.contains(host) { added.append(host) }
        case .remove(let host):
            added.removeAll { $0 == host }
            if !removed.contains(host) { removed.append(host) }
        }
        added.sort()
        removed.sort()
    }
}

/// One admin request: switch blocking off (`add`) or back on (`remove`) for a host.
enum UnprotectedSiteChange: Sendable, Equatable {
    case add(String)
    case remove(String)
}

enum UnprotectedSites {
    /// Normalises every entry (IDN to punycode, lowercase); throws naming the first that is no host.
    static func normalized(_ entries: [String], key: String) throws(ConfigurationError) -> [String] {
        var hosts: [String] = []
        for (index, entry) in entries.enumerated() {
            do {
                let host = try SiteHost.normalize(entry)
                if !hosts.contains(host) { hosts.append(host) }
            } catch {
                throw ConfigurationError(file: "", key: "\(key)[\(index)]", problem: error.description)
            }
        }
        return hosts.sorted()
    }
}

extension StateStore {
    static let unprotectedSitesFile = "unprotected-sites.json"
    var unprotectedSitesPath: String { directory + "/" + Self.unprotectedSitesFile }

    /// The admin endpoint's edits; none when the file does not exist yet.
    func loadUnprotectedSiteEdits() throws(StateError) -> UnprotectedSiteEdits {
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
            throw .newerVersion(path: unprotectedSitesPath, found: edits.version, supported: UnprotectedSiteEdits.currentVersion)
        }
        return edits
    }

    func saveUnprotectedSiteEdits(_ edits: UnprotectedSiteEdits) throws(StateError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try write(Array((try? encoder.encode(edits)) ?? Data()), to: unprotectedSitesPath)
    }
}
