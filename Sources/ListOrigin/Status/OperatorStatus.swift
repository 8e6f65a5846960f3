import Foundation

/// What operators see in /status and /metrics about publishing and upstreams. The refresh side
/// writes it, the HTTP side reads it; `StatusBoard` guards it.
struct OperatorStatus: Codable, Sendable, Equatable {
    struct ListStatus: Codable, Sendable, Equatable {
        var id: String
        var file: String
        var rules: Int
        var bytes: Int
        var gzipBytes: Int
    }

    struct UpstreamStatus: Codable, Sendable, Equatable {
        var id: String
        var url: String
        /// `bundled-snapshot` or `upstream`: where the copy in use came from.
        var source: String
        /// When that copy was fetched (upstream) or the snapshot's date label.
        var sourceDate: String?
        /// The last fetch that left a current copy (updated or not modified); nil: never.
        var lastFetchAt: Date?
        /// The last attempt, whatever its outcome (`lastResult`, `lastError`); nil: none yet.
        var lastAttemptAt: Date?
        /// `UpstreamOutcome.label` (`updated`, `not-modified`, `rejected`, `failed`), or nil before the first attempt.
        var lastResult: String?
        var lastHTTPStatus: Int?
        var etag: String?
        var lastModified: String?
        var lastError: String?
        var rules: Int?
    }

    struct RefreshStatus: Codable, Sendable, Equatable {
        var at: Date
        /// `RefreshResult.label`: `published`, `unchanged`, `failed`.
        var result: String
        var error: String?
        var nextAt: Date?

        var succeeded: Bool { result != RefreshResult.failedLabel }
    }

    struct ConversionSummary: Codable, Sendable, Equatable {
        var inputRules: Int
        var converted: Int
        var skipped: Int
        var skippedByReason: [String: Int]
        var outputRules: Int
    }

    /// Skipped ABP lines by reason with one example each, for the status page (not in the JSON).
    struct SkippedRules: Codable, Sendable, Equatable {
        var reason: String
        var count: Int
        var example: String?
    }

    var manifestSHA256: String?
    var generatedAt: Date?
    var lists: [ListStatus] = []
    var upstreams: [UpstreamStatus] = []
    var lastRefresh: RefreshStatus?
    var conversion: ConversionSummary?
    var signing: SigningStatus?
    /// nil until a conversion report was seen.
    var skippedRules: [SkippedRules]?
    /// Follower mode only: the primary and how well this origin keeps up with it.
    var follow: FollowStatus?
    /// ABP lines the last publish dropped because WebKit rejected their rules (nil: no publish yet).
    var isolatedLines: [IsolatedLine]?
    /// The last publish's compile times of new versions against the versions they replace, held or not.
    var compileRegression: CompileRegressionGate.Comparison?
}

/// Thread-safe holder of `OperatorStatus`, shared by the refresher (writer) and the server (reader).
final class StatusBoard: @unchecked Sendable {
    private let lock = NSLock()
    private var status: OperatorStatus
    private var attachedHistory: RefreshHistory?

    init(_ status: OperatorStatus = OperatorStatus()) {
        self.status = status
    }

    /// The refresh history the status page shows; `RefreshReporting` attaches the one it writes.
    var history: RefreshHistory? {
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

    var current: OperatorStatus {
        lock.lock()
        defer { lock.unlock() }
        return status
    }

    func update(_ change: (inout OperatorStatus) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        change(&status)
    }
}
