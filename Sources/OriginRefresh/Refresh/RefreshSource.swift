import Dispatch
import Foundation
import OriginConfig
import OriginStore

/// Runs refreshes (`RefreshStages`) one at a time on a `SerialJob`: every `refresh.intervalSeconds` plus a
/// random jitter, and on demand (`POST /admin/refresh`). Triggers that arrive while a refresh runs
/// collapse into one follow-up run.
package final class RefreshSource: SetSource, @unchecked Sendable {
    package let workName = "refresh"
    private let stages: RefreshStages
    private let install: @Sendable (SiteContent) -> Void
    /// Hands a changed set other than the default one to the HTTP layer, by name.
    private let installOther: @Sendable (String, SiteContent) -> Void
    private let interval: Double
    /// Set once in `init`, before anything can reach it.
    private var job: SerialJob!
    // Touched only by the job's runs, one at a time.
    private var state: PersistentState
    /// The set being served, kept in memory: each refresh publishes over it.
    private var published: PublishedSet?
    /// The sets other than the default one, refreshed after it from the same upstream copies.
    private var others: [OtherSet]
    /// Failed refreshes in a row; a failed day is retried sooner than the next interval.
    private var consecutiveFailures = 0

    package init(
        stages: RefreshStages, state: PersistentState, published: PublishedSet?, others: [OtherSet] = [],
        installOther: @escaping @Sendable (String, SiteContent) -> Void = { _, _ in },
        install: @escaping @Sendable (SiteContent) -> Void
    ) {
        self.stages = stages
        self.state = state
        self.published = published
        self.others = others
        self.install = install
        self.installOther = installOther
        interval = stages.resolved.configuration.refresh.intervalSeconds
        job = SerialJob(label: "listserver.refresh") { [weak self] _ in self?.runOnline() }
    }

    /// Runs one refresh and hands a changed set to the HTTP layer, from memory.
    @discardableResult
    private func refresh(_ mode: FetchStage.Mode) -> RefreshOutcome {
        let outcome = stages.run(mode, state: &state, published: &published, others: &others)
        if let set = outcome.published { install(set.content) }
        for other in outcome.otherSets {
            if let set = other.published { installOther(other.name, set.content) }
        }
        MemoryTuning.releaseFreeMemory()
        return outcome
    }

    /// With a set served: `startWhenDue`; with none yet: `startFromSnapshot`.
    package func start() {
        if published == nil { startFromSnapshot() } else { startWhenDue() }
    }

    /// Publishes from what is on disk (last good copies or bundled snapshots) without fetching,
    /// then fetches at once. For a start with nothing published yet.
    package func startFromSnapshot() {
        job.start {
            self.refresh(.offline)
            return 0
        }
    }

    /// Schedules the first fetch when it is due: at once if never fetched or the interval has passed.
    /// Before that, publishes copies already on disk that the served set was not built from (a
    /// crash between keeping a new copy and publishing it); when nothing changed that check costs
    /// a hash, not a conversion.
    package func startWhenDue(now: Date = Date()) {
        job.start {
            // Without a record of the served set's sources (state lost), leave the served set alone
            // until a fetch: converting the snapshot could replace a newer upstream set.
            if self.state.publishedSources != nil { self.refresh(.offline) }
            let due = self.state.lastRefreshAt.map { $0.addingTimeInterval(self.interval).timeIntervalSince(now) } ?? 0
            return due > 0 ? self.announceNext(in: due) : due
        }
    }

    package func trigger() { job.trigger() }

    /// Records an admin change to the unprotected sites and publishes every set's manifest that
    /// carries them, between refreshes (on the job). Returns at once.
    package func changeUnprotectedSite(_ change: UnprotectedSiteChange) {
        job.submit {
            let published = self.stages.publishUnprotectedSites(
                state: &self.state, published: &self.published, others: &self.others, change: change)
            if let set = published.default { self.install(set.content) }
            for (name, set) in published.others { self.installOther(name, set.content) }
        }
    }

    /// A refresh already running finishes (its writes are atomic either way).
    package func stop() { job.stop() }

    /// Waits until queued work (e.g. a refresh in progress) is done. For tests and the CLI.
    package func waitUntilIdle() { job.waitUntilIdle() }

    package func waitUntilIdle(timeout seconds: Double) -> Bool { job.waitUntilIdle(timeout: seconds) }

    /// One online refresh; returns the seconds until the next one and shows them in /status.
    private func runOnline() -> Double {
        if case .failed = refresh(.online).result {
            consecutiveFailures += 1
        } else {
            consecutiveFailures = 0
        }
        return announceNext(
            in: Self.delay(afterFailures: consecutiveFailures, configuration: stages.resolved.configuration.refresh))
    }

    /// Shows when the next refresh runs (/status, the log); returns `seconds`.
    private func announceNext(in seconds: Double) -> Double {
        let at = Date().addingTimeInterval(seconds)
        stages.reporting.status.update { $0.lastRefresh?.nextAt = at }
        stages.reporting.log.info("next refresh in \(Int(seconds)) s")
        return seconds
    }

    /// Seconds until the next refresh: the interval plus jitter after a success; after failures,
    /// `retryAfterFailureSeconds` doubling per failure in a row (with jitter), never beyond the
    /// interval, so a broken upstream is not left alone for a whole day.
    static func delay(afterFailures failures: Int, configuration: Configuration.Refresh) -> Double {
        let jitter = Double.random(in: 0...max(0, configuration.jitterSeconds))
        guard failures > 0 else { return configuration.intervalSeconds + jitter }
        let backoff = configuration.retryAfterFailureSeconds * pow(2, Double(min(failures - 1, 20)))
        let capped = min(configuration.intervalSeconds, backoff)
        return capped + Double.random(in: 0...(capped * 0.1))
    }
}
