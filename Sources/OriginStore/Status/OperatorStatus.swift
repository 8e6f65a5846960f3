import Foundation

/// What operators see in /status and /metrics about publishing and upstreams. The refresh side
/// writes it, the HTTP side reads it; `StatusBoard` guards it.
package struct OperatorStatus: Codable, Sendable, Equatable {
    package struct ListStatus: Codable, Sendable, Equatable {
        package var id: String
        package var file: String
        package var rules: Int
        package var bytes: Int
        package var gzipBytes: Int
    }

    package struct UpstreamStatus: Codable, Sendable, Equatable {
        package var id: String
        package var url: String
        /// `bundled-snapshot` or `upstream`: where the copy in use came from.
        package var source: String
        /// When that copy was fetched (upstream) or the snapshot's date label.
        package var sourceDate: String?
        /// The last fetch that left a current copy (updated or not modified); nil: never.
        package var lastFetchAt: Date?
        /// The last attempt, whatever its outcome (`lastResult`, `lastError`); nil: none yet.
        package var lastAttemptAt: Date?
        /// `UpstreamOutcome.label` (`updated`, `not-modified`, `rejected`, `failed`), or nil before the first attempt.
        package var lastResult: String?
        package var lastHTTPStatus: Int?
        package var etag: String?
        package var lastModified: String?
        package var lastError: String?
        package var rules: Int?
    }

    package struct RefreshStatus: Codable, Sendable, Equatable {
        package var at: Date
        /// `RefreshResult.label`: `published`, `unchanged`, `failed`.
        package var result: String
        package var error: String?
        package var nextAt: Date?

        package var succeeded: Bool { result != RefreshResult.failedLabel }
    }

    package struct ConversionSummary: Codable, Sendable, Equatable {
        package var inputRules: Int
        package var converted: Int
        package var skipped: Int
        package var skippedByReason: [String: Int]
        package var outputRules: Int
    }

    /// Skipped ABP lines by reason with one example each, for the status page (not in the JSON).
    package struct SkippedRules: Codable, Sendable, Equatable {
        package var reason: String
        package var count: Int
        package var example: String?
    }

    package var manifestSHA256: String?
    package var generatedAt: Date?
    package var lists: [ListStatus] = []
    package var upstreams: [UpstreamStatus] = []
    package var lastRefresh: RefreshStatus?
    package var conversion: ConversionSummary?
    package var signing: SigningStatus?
    /// nil until a conversion report was seen.
    package var skippedRules: [SkippedRules]?
    /// Follower mode only: the primary and how well this origin keeps up with it.
    package var follow: FollowStatus?
    /// ABP lines the last publish dropped because WebKit rejected their rules (nil: no publish yet).
    package var isolatedLines: [IsolatedLine]?
    /// The last publish's compile times of new versions against the versions they replace, held or not.
    package var compileRegression: CompileRegressionGate.Comparison?
}

/// Thread-safe holder of `OperatorStatus`, shared by the refresher (writer) and the server (reader).
package final class StatusBoard: @unchecked Sendable {
    private let lock = NSLock()
    private var status: OperatorStatus
    private var attachedHistory: RefreshHistory?
    /// The other sets' boards; this one is the default set's.
    package let sets = SetStatusBoards()

    package init(_ status: OperatorStatus = OperatorStatus()) {
        self.status = status
    }

    /// The refresh history the status page shows; `RefreshReporting` attaches the one it writes.
    package var history: RefreshHistory? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return attachedHistory
        }
        set {
            lock.lock()
            defer { lock.unlock() }
            attachedHistory = newValue
        }
    }

    package var current: OperatorStatus {
        lock.lock()
        defer { lock.unlock() }
        return status
    }

    package func update(_ change: (inout OperatorStatus) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        change(&status)
    }
}
