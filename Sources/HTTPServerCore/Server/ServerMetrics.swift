import Foundation

/// Request counters kept by one event loop, by route (`HTTPRoutes`) and status. Each loop writes
/// only its own instance (its lock is uncontended on the hot path); the server sums all loops'
/// snapshots.
final class ServerMetrics: @unchecked Sendable {
    /// Status codes counted individually; anything else lands in the last slot ("other").
    static let trackedStatuses = [
        200, 202, 206, 304, 400, 401, 404, 405, 406, 411, 412, 413, 414, 416, 431, 501, 503, 505,
    ]
    private static let statusSlot: [Int: Int] = Dictionary(
        uniqueKeysWithValues: trackedStatuses.enumerated().map { ($1, $0) })
    static let slotsPerRoute = trackedStatuses.count + 1

    private let lock = NSLock()
    private var counts: HTTPCounters

    init(routes: HTTPRoutes) {
        counts = HTTPCounters(routeLabels: routes.labels)
    }

    func record(route: HTTPRoute, status: Int) {
        let slot = Self.statusSlot[status] ?? Self.slotsPerRoute - 1
        lock.lock()
        counts.requests[route.index * Self.slotsPerRoute + slot] += 1
        lock.unlock()
    }

    func addBytesSent(_ count: Int) {
        lock.lock()
        counts.bytesSent += count
        lock.unlock()
    }

    func recordRefusedConnection() {
        lock.lock()
        counts.refusedConnections += 1
        lock.unlock()
    }

    var snapshot: HTTPCounters {
        lock.lock()
        defer { lock.unlock() }
        return counts
    }
}

/// The server's own counters at one moment, for the application's /status and /metrics.
public struct HTTPCounters: Sendable {
    /// One request count per route and status: what the counters list, in route order.
    public struct Count: Sendable, Equatable {
        public var route: String
        /// The status code, or `other` for codes not tracked one by one.
        public var status: String
        public var count: Int
    }

    public let routeLabels: [String]
    /// `[route.index * slotsPerRoute + statusSlot]`.
    var requests: [Int]
    public internal(set) var bytesSent = 0
    public internal(set) var refusedConnections = 0

    public init(routeLabels: [String]) {
        self.routeLabels = routeLabels
        requests = Array(repeating: 0, count: routeLabels.count * ServerMetrics.slotsPerRoute)
    }

    mutating func add(_ other: HTTPCounters) {
        for index in requests.indices { requests[index] += other.requests[index] }
        bytesSent += other.bytesSent
        refusedConnections += other.refusedConnections
    }

    /// Every non-zero count, routes in label order, statuses in tracked order then `other`.
    public var requestCounts: [Count] {
        var counts: [Count] = []
        for (route, label) in routeLabels.enumerated() {
            for slot in 0..<ServerMetrics.slotsPerRoute {
                let count = requests[route * ServerMetrics.slotsPerRoute + slot]
                guard count > 0 else { continue }
                let status =
                    slot < ServerMetrics.trackedStatuses.count ? String(ServerMetrics.trackedStatuses[slot]) : "other"
                counts.append(Count(route: label, status: status, count: count))
            }
        }
        return counts
    }

    public var totalRequests: Int { requests.reduce(0, +) }

    /// Requests answered with a 4xx or 5xx status.
    public var errorResponses: Int {
        var total = 0
        for route in routeLabels.indices {
            for (slot, status) in ServerMetrics.trackedStatuses.enumerated() where status >= 400 {
                total += requests[route * ServerMetrics.slotsPerRoute + slot]
            }
            total += requests[route * ServerMetrics.slotsPerRoute + ServerMetrics.slotsPerRoute - 1]
        }
        return total
    }
}
