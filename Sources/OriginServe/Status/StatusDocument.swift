import Foundation
import OriginStore

/// The JSON body of `GET /status`: one object with the fields of `OperatorStatus` (less the
/// skipped-rule examples, which only the page shows) beside the server's own.
package struct StatusDocument: Encodable {
    package struct HTTPCounters: Encodable {
        var openConnections: Int
        var requestsTotal: Int
        var errorResponsesTotal: Int
        var bytesSent: Int
        var refusedConnections: Int
        /// route → status code → count (zero counts omitted).
        var requests: [String: [String: Int]]
    }

    /// What only the server knows: its version, uptime, the manifest it serves and its counters.
    struct ServerFields: Encodable {
        var version: String
        var startedAt: Date
        var uptimeSeconds: Int
        var healthy: Bool
        var servedManifestSHA256: String?
        var servedManifestPublishedAt: Date?
        /// Follower mode: seconds since the primary last confirmed the served set, and generations behind.
        var followLagSeconds: Int?
        var followLagGenerations: Int?
        var http: HTTPCounters
        /// Every set served (name, target, upstreams, manifest, lists, rules).
        var sets: [ServedSetActivity]
    }

    /// What the refresh side wrote, as it wrote it.
    var status: OperatorStatus
    var server: ServerFields

    package init(status: OperatorStatus, activity: ServerActivity) {
        self.status = status
        self.status.skippedRules = nil
        var byRoute: [String: [String: Int]] = [:]
        for count in activity.metrics.requestCounts {
            byRoute[count.route, default: [:]][count.status] = count.count
        }
        server = ServerFields(
            version: activity.version, startedAt: activity.startedAt,
            uptimeSeconds: max(0, Int(activity.now.timeIntervalSince(activity.startedAt))),
            healthy: activity.manifestInstalled, servedManifestSHA256: activity.servedManifestSHA256,
            servedManifestPublishedAt: activity.servedManifestPublishedAt,
            followLagSeconds: status.follow?.lagSeconds(now: activity.now),
            followLagGenerations: status.follow?.lagGenerations,
            http: HTTPCounters(
                openConnections: activity.openConnections, requestsTotal: activity.metrics.totalRequests,
                errorResponsesTotal: activity.metrics.errorResponses, bytesSent: activity.metrics.bytesSent,
                refusedConnections: activity.metrics.refusedConnections, requests: byRoute),
            sets: activity.sets)
    }

    /// Both halves into one object: a second keyed container on the same encoder adds to the first.
    package func encode(to encoder: any Encoder) throws {
        try status.encode(to: encoder)
        try server.encode(to: encoder)
    }

    package func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        // Encoding plain value types cannot fail; an empty object is the safe fallback.
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        return Array(data) + [0x0A]
    }
}
