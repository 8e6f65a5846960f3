import Foundation

/// `/status`'s `follow` object (follower mode only): which primary, when it last confirmed or
/// installed a set, how far behind it is and, when the primary's last answer was refused or
/// failed, why. The last good set keeps being served in every case.
package struct FollowStatus: Codable, Sendable, Equatable {
    /// The primary's manifest URL.
    package var primary: String
    package var lastAttemptAt: Date?
    /// The last poll that ended with this origin serving the primary's manifest (installed or 304).
    package var lastSuccessAt: Date?
    /// `installed`, `not-modified`, `refused` or `failed`; nil before the first poll.
    package var lastResult: String?
    /// Why the last poll was refused or failed; nil after a success.
    package var lastError: String?
    /// Polls refused (bad signature, lower generation, expired, hash mismatch) since start.
    package var refusals = 0
    /// Polls that could not reach the primary or fetch a file since start.
    package var failures = 0
    /// The generation this origin serves and the newest the primary offered (refused or not).
    package var servedGeneration: Int?
    package var primaryGeneration: Int?

    /// Seconds since the primary last confirmed the served set (0 right after a success).
    package func lagSeconds(now: Date) -> Int? {
        lastSuccessAt.map { max(0, Int(now.timeIntervalSince($0))) }
    }

    /// How many generations the served set is behind the newest one the primary offered.
    /// Generations are Unix-time based, so this counts publishes only when they are a second apart
    /// or more; 0 means in step.
    package var lagGenerations: Int? {
        guard let served = servedGeneration, let primary = primaryGeneration else { return nil }
        return max(0, primary - served)
    }

    package init(
        primary: String, lastAttemptAt: Date? = nil, lastSuccessAt: Date? = nil, lastResult: String? = nil,
        lastError: String? = nil, refusals: Int = 0, failures: Int = 0, servedGeneration: Int? = nil,
        primaryGeneration: Int? = nil
    ) {
        self.primary = primary
        self.lastAttemptAt = lastAttemptAt
        self.lastSuccessAt = lastSuccessAt
        self.lastResult = lastResult
        self.lastError = lastError
        self.refusals = refusals
        self.failures = failures
        self.servedGeneration = servedGeneration
        self.primaryGeneration = primaryGeneration
    }
}
