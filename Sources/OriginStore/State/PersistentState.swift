import Foundation

/// What the server remembers between runs, in `state.json`. Versioned so a newer server can read
/// an older directory (or refuse with a message naming the version it found).
package struct PersistentState: Codable, Sendable, Equatable {
    /// The version this build writes and the highest it reads.
    static let currentVersion = 1

    /// What is known about one upstream's copy in use.
    package struct Upstream: Codable, Sendable, Equatable {
        /// `ETag` of the copy in use, sent back as `If-None-Match` (RFC 9110 §13.1.2).
        package var etag: String?
        /// `Last-Modified` of the copy in use, sent back as `If-Modified-Since` (RFC 9110 §13.1.3).
        package var lastModified: String?
        /// `upstream` or `bundled-snapshot`.
        package var source: String
        /// Fetch date (upstream) or the snapshot's date label.
        package var sourceDate: String?
        package var fetchedAt: Date?
        /// Filter lines in the copy: the baseline of the minimum-share check.
        package var rules: Int
        package var sha256: String

        /// A copy fetched from upstream at `fetchedAt`, with the validators it came with.
        package static func fetched(
            etag: String?, lastModified: String?, at fetchedAt: Date, rules: Int, sha256: String
        ) -> Self {
            Self(
                etag: etag, lastModified: lastModified, source: UpstreamSource.upstream,
                sourceDate: ISO8601DateFormatter().string(from: fetchedAt), fetchedAt: fetchedAt, rules: rules,
                sha256: sha256)
        }

        /// The bundled snapshot labelled `label` (it has no validators and was never fetched).
        package static func bundledSnapshot(label: String, rules: Int, sha256: String) -> Self {
            Self(source: UpstreamSource.bundledSnapshot, sourceDate: label, rules: rules, sha256: sha256)
        }
    }

    /// One published manifest: which files it named and when it was current.
    package struct PublishRecord: Codable, Sendable, Equatable {
        package var manifestSHA256: String
        package var publishedAt: Date
        /// When a later manifest replaced it; the grace period for its files starts here.
        var supersededAt: Date?
        package var files: [String]
    }

    package var version = PersistentState.currentVersion
    package var upstreams: [String: Upstream] = [:]
    /// Oldest first; records whose files are all gone are dropped.
    package var history: [PublishRecord] = []
    /// When the last refresh attempt ran (drives "refresh if due" on start).
    package var lastRefreshAt: Date?
    /// SHA-256 of each upstream copy the published set was converted from; a conversion is due
    /// when the copies in use differ (so a failed publish is retried even after a 304).
    package var publishedSources: [String: String]?
    /// Each upstream's last fetch attempt, good or not, so a restart still shows it (nil: none recorded).
    package var lastAttempts: [String: FetchAttempt]?

    /// One fetch attempt (all its retries) and how it ended.
    package struct FetchAttempt: Codable, Sendable, Equatable {
        package var at: Date
        /// `UpstreamOutcome.label`.
        package var result: String
        package var httpStatus: Int?
        package var error: String?

        package init(at: Date, result: String, httpStatus: Int?, error: String?) {
            self.at = at
            self.result = result
            self.httpStatus = httpStatus
            self.error = error
        }
    }
}
