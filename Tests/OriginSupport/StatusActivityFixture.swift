import Foundation
import HTTPServerCore

@testable import OriginServe

/// A fixed server activity for rendering /status, the status page and /metrics outside a server.
package enum StatusActivityFixture {
    package static let now = Date(timeIntervalSince1970: 1_800_000_000)

    package static func activity(fileDates: [String: Date] = [:]) -> ServerActivity {
        ServerActivity(
            version: "1.0.0", startedAt: now.addingTimeInterval(-3600), now: now, openConnections: 1,
            metrics: HTTPCounters(routeLabels: []), fileDates: fileDates, manifestInstalled: true)
    }
}
