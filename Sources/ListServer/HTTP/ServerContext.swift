import Foundation

/// The read-only world every event loop answers from, plus the one mutable thing: the current
/// generation, swapped whole under a lock so each request sees exactly one generation.
final class ServerContext: @unchecked Sendable {
    let configuration: Configuration.HTTP
    let parts = ResponseParts()
    let admin: AdminEndpoint?
    let status: StatusBoard
    let log: Log
    /// Gathers the server's counters for /status and /metrics (sums every loop).
    var activity: () -> ServerActivity = { ServerActivity(version: "", startedAt: Date(), now: Date(), openConnections: 0, metrics: .zero, fileDates: [:], manifestInstalled: false) }

    private let siteLock = NSLock()
    private var site: PreparedSite

    init(configuration: Configuration.HTTP, status: StatusBoard, log: Log, admin: AdminEndpoint?) {
        self.configuration = configuration
        self.status = status
        self.log = log
        self.admin = admin
        site = PreparedSite(.empty, configuration: configuration)
    }

    var currentSite: PreparedSite {
        siteLock.lock()
        defer { siteLock.unlock() }
        return site
    }

    func install(_ prepared: PreparedSite) {
        siteLock.lock()
        site = prepared
        siteLock.unlock()
    }
}
