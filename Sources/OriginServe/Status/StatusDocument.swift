import Foundation
import OriginStore

/// The JSON body of `GET /status`: everything in `OperatorStatus` plus the server's own counters.
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

    package var version: String
    package var startedAt: Date
    var uptimeSeconds: Int
    var healthy: Bool
    package var manifestSHA256: String?
    package var generatedAt: Date?
    var servedManifestSHA256: String?
    var servedManifestPublishedAt: Date?
    package var lists: [OperatorStatus.ListStatus]
    package var upstreams: [OperatorStatus.UpstreamStatus]
    package var lastRefresh: OperatorStatus.RefreshStatus?
    package var conversion: OperatorStatus.ConversionSummary?
    package var signing: SigningStatus?
    package var follow: FollowStatus?
    /// Follower mode: seconds since the primary last confirmed the served set, and generations behind.
    var followLagSeconds: Int?
    var followLagGenerations: Int?
    /// ABP lines left out of the published set because WebKit rejected their rules, with its error.
    var isolatedLines: [IsolatedLine]?
    /// New list versions' WebKit compile times against the versions they replace, and whether that held the publish.
    var compileRegression: CompileRegressionGate.Comparison?
    package var http: HTTPCounters
    /// Every set served (name, target, upstreams, manifest, lists, rules).
    var sets: [ServedSetActivity]

    package init(status: OperatorStatus, activity: ServerActivity) {
        version = activity.version
        startedAt = activity.startedAt
        uptimeSeconds = max(0, Int(activity.now.timeIntervalSince(activity.startedAt)))
        healthy = activity.manifestInstalled
        sets = activity.sets
        manifestSHA256 = status.manifestSHA256
        generatedAt = status.generatedAt
        servedManifestSHA256 = activity.servedManifestSHA256
        servedManifestPublishedAt = activity.servedManifestPublishedAt
        lists = status.lists
        upstreams = status.upstreams
        lastRefresh = status.lastRefresh
        conversion = status.conversion
        signing = status.signing
        follow = status.follow
        followLagSeconds = status.follow?.lagSeconds(now: activity.now)
        followLagGenerations = status.follow?.lagGenerations
        isolatedLines = status.isolatedLines
        compileRegression = status.compileRegression
        var byRoute: [String: [String: Int]] = [:]
        for count in activity.metrics.requestCounts {
            byRoute[count.route, default: [:]][count.status] = count.count
        }
        http = HTTPCounters(
            openConnections: activity.openConnections, requestsTotal: activity.metrics.totalRequests,
            errorResponsesTotal: activity.metrics.errorResponses, bytesSent: activity.metrics.bytesSent,
            refusedConnections: activity.metrics.refusedConnections, requests: byRoute)
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
