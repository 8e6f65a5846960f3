import Foundation

/// What the server remembers between runs, in `state.json`. Versioned so a newer server can read
/// an older directory (or refuse with a message naming the version it found).
struct PersistentState: Codable, Sendable, Equatable {
    /// The version this build writes and the highest it reads.
    static let currentVersion = 1

    /// What is known about one upstream's copy in use.
    struct Upstream: Codable, Sendable, Equatable {
        /// `ETag` of the copy in use, sent back as `If-None-Match` (RFC 9110 §13.1.2).
        var etag: String?
        /// `Last-Modified` of the copy in use, sent back as `If-Modified-Since` (RFC 9110 §13.1.3).
        var lastModified: String?
        /// `upstream` or `bundled-snapshot`.
        var source: String
        /// Fetch date (upstream) or the snapshot's date label.
        var sourceDate: String?
        var fetchedAt: Date?
        /// Filter lines in the copy: the baseline of the minimum-share check.
        var rules: Int
        var sha256: String
    }

    /// One published manifest: which files it named and when it was current.
    struct PublishRecord: Codable, Sendable, Equatable {
        var manifestSHA256: String
        var publishedAt: Date
        /// When a later manifest replaced it; the grace period for its files starts here.
        var supersededAt: Date?
        var files: [String]
    }

    var version = PersistentState.currentVersion
    var upstreams: [String: Upstream] = [:]
    /// Oldest first; records whose files are all gone are dropped.
    var history: [PublishRecord] = []
    /// When the last refresh attempt ran (drives "refresh if due" on start).
    var lastRefreshAt: Date?
    /// SHA-256 of each upstream copy the published set was converted from; a conversion is due
    /// when the copies in use differ (so a failed publish is retried even after a 304).
    var publishedSources: [String: String]?
    /// Each upstream's last fetch attempt, good or not, so a restart still shows it (nil: none recorded).
    var lastAttempts: [String: FetchAttempt]?

    /// One fetch attempt (all its retries) and how it ended.
    struct FetchAttempt: Codable, Sendable, Equatable {
        var at: Date
        /// `UpstreamOutcome.label`.
        var result: String
        var httpStatus: Int?
        var error: String?
    }
}
