import Foundation

/// Request counters kept by one event loop. Each loop writes only its own instance (its lock is
/// uncontended on the hot path); /status and /metrics sum all loops' snapshots.
final class ServerMetrics: @unchecked Sendable {
    /// What a request was for; a label in /metrics.
    enum Route: Int, CaseIterable, Sendable {
        case manifest, list, healthz, status, metrics, admin, notFound, invalid, options
        var label: String {
            ["manifest", "list", "healthz", "status", "metrics", "admin", "not_found", "invalid", "options"][rawValue]
        }
    }

    /// Status codes counted individually; anything else lands in the last slot.
    static let trackedStatuses = [200, 202, 206, 304, 400, 401, 404, 405, 406, 411, 412, 413, 414, 416, 431, 501, 503, 505]
    private static let statusSlot: [Int: Int] = Dictionary(uniqueKeysWithValues: trackedStatuses.enumerated().map { ($1, $0) })
    static let slotsPerRoute = trackedStatuses.count + 1

    struct Snapshot: Sendable {
        /// `[route.rawValue * slotsPerRoute + statusSlot]`.
        var requests: [Int]
        var bytesSent: Int
        var refusedConnections: Int

        static var zero: Snapshot {
            Snapshot(requests: Array(repeating: 0, count: Route.allCases.count * ServerMetrics.slotsPerRoute), bytesSent: 0, refusedConnections: 0)
        }

        mutating func add(_ other: Snapshot) {
            for index in requests.indices { requests[index] += other.requests[index] }
            bytesSent += other.bytesSent
            refusedConnections += other.refusedConnections
        }

        var totalRequests: Int { requests.reduce(0, +) }

        /// Requests answered with a 4xx or 5xx status.
        var errorResponses: Int {
            var total = 0
            for route in Route.allCases {
                for (slot, status) in ServerMetrics.trackedStatuses.enumerated() where status >= 400 {
                    total += requests[route.rawValue * ServerMetrics.slotsPerRoute + slot]
                }
                total += requests[route.rawValue * ServerMetrics.slotsPerRoute + ServerMetrics.slotsPerRoute - 1]
            }
            return total
        }
    }

    private let lock = NSLock()
    private var counts = Snapshot.zero

    func record(route: Route, status: Int) {
        let slot = Self.statusSlot[status] ?? Self.slotsPerRoute - 1
        lock.lock()
        counts.requests[route.rawValue * Self.slotsPerRoute + slot] += 1
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

    var snapshot: Snapshot {
        lock.lock()
        defer { lock.unlock() }
        return counts
    }
}
