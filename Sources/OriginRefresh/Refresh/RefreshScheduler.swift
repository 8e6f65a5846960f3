import Dispatch
import Foundation
import OriginConfig
import OriginStore

/// Runs refresh cycles one at a time on a private queue: every `refresh.intervalSeconds` plus a
/// random jitter, and on demand (`POST /admin/refresh`). Triggers that arrive while a refresh runs
/// collapse into one follow-up run.
package final class RefreshScheduler: @unchecked Sendable {
    private let queue = DispatchQueue(label: "listserver.refresh")
    private let pipeline: Pipeline
    private let install: @Sendable (SiteContent) -> Void
    /// Hands a changed set other than the default one to the HTTP layer, by name.
    private let installOther: @Sendable (String, SiteContent) -> Void
    private let interval: Double
    // Touched only on `queue`.
    private var state: PersistentState
    /// The set being served, kept in memory: each refresh publishes over it.
    private var published: PublishedSet?
    /// The sets other than the default one, refreshed after it from the same upstream copies.
    private var others: [OtherSet]
    private var timer: DispatchSourceTimer?
    private var stopped = false
    private var followUpQueued = false
    /// Failed refreshes in a row; a failed day is retried sooner than the next interval.
    private var consecutiveFailures = 0

    package init(pipeline: Pipeline, state: PersistentState, published: PublishedSet?, others: [OtherSet] = [],
                 installOther: @escaping @Sendable (String, SiteContent) -> Void = { _, _ in },
                 install: @escaping @Sendable (SiteContent) -> Void) {
        self.pipeline = pipeline
        self.state = state
        self.published = published
        self.others = others
        self.install = install
        self.installOther = installOther
        interval = pipeline.resolved.configuration.refresh.intervalSeconds
    }

    /// Runs one refresh and hands a changed set to the HTTP layer, from memory.
    @discardableResult
    private func refresh(_ mode: RefreshCycle.Mode) -> RefreshOutcome {
        let outcome = pipeline.run(mode, state: &state, published: &published, others: &others)
        if let set = outcome.published { install(set.content) }
        for other in outcome.otherSets {
            if let set = other.published { installOther(other.name, set.content) }
        }
        MemoryTuning.releaseFreeMemory()
        return outcome
    }

    /// Publishes from what is on disk (last good copies or bundled snapshots) without fetching,
    /// then fetches at once. For a start with nothing published yet.
    package func startFromSnapshot() {
        queue.async {
            self.refresh(.offline)
            self.runOnline()
        }
    }

    /// Schedules the first fetch when it is due: at once if never fetched or the interval has passed.
    /// Before that, publishes copies already on disk that the served set was not built from (a
    /// crash between keeping a new copy and publishing it); when nothing changed that check costs
    /// a hash, not a conversion.
    package func start(now: Date = Date()) {
        queue.async {
            // Without a record of the served set's sources (state lost), leave the served set alone
            // until a fetch: converting the snapshot could replace a newer upstream set.
            if self.state.publishedSources != nil { self.refresh(.offline) }
            let due = self.state.lastRefreshAt.map { $0.addingTimeInterval(self.interval).timeIntervalSince(now) } ?? 0
            if due <= 0 {
                self.runOnline()
            } else {
                self.schedule(after: due)
            }
        }
    }

    /// Asks for a refresh now (admin endpoint). Returns at once.
    package func trigger() {
        queue.async {
            if self.followUpQueued { return }
            self.followUpQueued = true
            self.queue.async {
                self.followUpQueued = false
                self.runOnline()
            }
        }
    }

    /// Stops scheduling; a refresh already running finishes (its writes are atomic either way).
    package func stop() {
        queue.async {
            self.stopped = true
            self.timer?.cancel()
            self.timer = nil
        }
    }

    /// Waits until queued work (e.g. a refresh in progress) is done. For tests and the CLI.
    package func waitUntilIdle() {
        queue.sync {}
    }

    /// Waits at most `seconds` for queued work; false when a refresh is still running then.
    package func waitUntilIdle(timeout seconds: Double) -> Bool {
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        return done.wait(timeout: .now() + seconds) == .success
    }

    private func runOnline() {
        guard !stopped else { return }
        if case .failed = refresh(.online).result {
            consecutiveFailures += 1
        } else {
            consecutiveFailures = 0
        }
        schedule(after: Self.delay(afterFailures: consecutiveFailures, configuration: pipeline.resolved.configuration.refresh))
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

    private func schedule(after seconds: Double) {
        guard !stopped else { return }
        timer?.cancel()
        let next = DispatchSource.makeTimerSource(queue: queue)
        next.schedule(deadline: .now() + seconds)
        next.setEventHandler { [weak self] in self?.runOnline() }
        next.resume()
        timer = next
        let at = Date().addingTimeInterval(seconds)
        pipeline.reporting.status.update { $0.lastRefresh?.nextAt = at }
        pipeline.reporting.log.info("next refresh in \(Int(seconds)) s")
    }
}
