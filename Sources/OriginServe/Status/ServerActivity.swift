import Foundation
import HTTPServerCore

/// What the HTTP server itself knows for /status and /metrics (the publishing side's part is
/// `OperatorStatus`): version, uptime, connections and request counters.
package struct ServerActivity: Sendable {
    package var version: String
    package var startedAt: Date
    package var now: Date
    var openConnections: Int
    var metrics: HTTPCounters
    /// Last-Modified of each served list file by name, for list ages.
    var fileDates: [String: Date]
    var manifestInstalled: Bool
    /// SHA-256 and publish time of the manifest actually being served (may briefly differ from
    /// `OperatorStatus.manifestSHA256` while a new generation is being installed).
    var servedManifestSHA256: String? = nil
    var servedManifestPublishedAt: Date? = nil
    /// Every set served, in configuration order (empty before the sets are described).
    var sets: [ServedSetActivity] = []
}
