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

        package init(id: String, file: String, rules: Int, bytes: Int, gzipBytes: Int) {
            self.id = id
            self.file = file
            self.rules = rules
            self.bytes = bytes
            self.gzipBytes = gzipBytes
        }
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

        package init(
            id: String, url: String, source: String, sourceDate: String? = nil, lastFetchAt: Date? = nil,
            lastAttemptAt: Date? = nil, lastResult: String? = nil, lastHTTPStatus: Int? = nil, etag: String? = nil,
            lastModified: String? = nil, lastError: String? = nil, rules: Int? = nil
        ) {
            self.id = id
            self.url = url
            self.source = source
            self.sourceDate = sourceDate
            self.lastFetchAt = lastFetchAt
            self.lastAttemptAt = lastAttemptAt
            self.lastResult = lastResult
            self.lastHTTPStatus = lastHTTPStatus
            self.etag = etag
            self.lastModified = lastModified
            self.lastError = lastError
            self.rules = rules
        }
    }

    package struct RefreshStatus: Codable, Sendable, Equatable {
        package var at: Date
        /// `RefreshResult.label`: `published`, `unchanged`, `failed`.
        package var result: String
        package var error: String?
        package var nextAt: Date?

        package var succeeded: Bool { result != RefreshResult.failedLabel }

        package init(at: Date, result: String, error: String? = nil, nextAt: Date? = nil) {
            self.at = at
            self.result = result
            self.error = error
            self.nextAt = nextAt
        }
    }

    package struct ConversionSummary: Codable, Sendable, Equatable {
        package var inputRules: Int
        package var converted: Int
        package var skipped: Int
        package var skippedByReason: [String: Int]
        package var outputRules: Int

        package init(inputRules: Int, converted: Int, skipped: Int, skippedByReason: [String: Int], outputRules: Int) {
            self.inputRules = inputRules
            self.converted = converted
            self.skipped = skipped
            self.skippedByReason = skippedByReason
            self.outputRules = outputRules
        }
    }

    /// Skipped ABP lines by reason with one example each, for the status page (not in the JSON).
    package struct SkippedRules: Codable, Sendable, Equatable {
        package var reason: String
        package var count: Int
        package var example: String?

        package init(reason: String, count: Int, example: String? = nil) {
            self.reason = reason
            self.count = count
            self.example = example
        }
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
