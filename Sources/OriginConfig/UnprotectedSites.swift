import Converter
import Foundation

/// The sites where devices turn blocking off: the config's `unprotectedSites` plus what the admin
/// endpoint added, minus what it removed. The edits live in the state directory, so a restart keeps
/// them and a site the config names can still be switched back on at runtime.
package struct UnprotectedSiteEdits: Codable, Sendable, Equatable {
    package static let currentVersion = 1
    package var version = Self.currentVersion
    package var added: [String] = []
    package var removed: [String] = []

    package init() {}

    /// What the manifest carries: normalised hosts, sorted, each once.
    package func effective(configured: [String]) -> [String] {
        Array(Set(configured).union(added).subtracting(removed)).sorted()
    }

    /// Records one admin change (hosts already normalised). An add undoes an earlier remove and back.
    package mutating func apply(_ change: UnprotectedSiteChange) {
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
package enum UnprotectedSiteChange: Sendable, Equatable {
    case add(String)
    case remove(String)
}

package enum UnprotectedSites {
    /// Normalises every entry (IDN to punycode, lowercase); throws naming the first that is no host.
    package static func normalized(_ entries: [String], key: String) throws(ConfigurationError) -> [String] {
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
