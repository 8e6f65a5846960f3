import Dispatch
import Foundation
import OriginStore

/// Polls the primary every `follow.intervalSeconds` (and on `POST /admin/refresh`) on a
/// `SerialJob`, one poll at a time; installs what `SetFollower` returns and reports every outcome
/// in /status. Refusals and failures leave the served set as it is.
package final class FollowSource: SetSource, @unchecked Sendable {
    package let workName = "follow poll"
    /// Set once in `init`, before anything can reach it.
    private var job: SerialJob!
    private let follower: SetFollower
    private let installer: FollowInstaller
    private let store: StateStore
    private let status: StatusBoard
    private let log: Log
    private let interval: Double
    private let install: @Sendable (PublishedSet) -> Void
    // Touched only by the job's polls, one at a time.
    private var state: PersistentState
    private var published: PublishedSet?
    private var etag: String?

    package init(
        follower: SetFollower, installer: FollowInstaller, store: StateStore, state: PersistentState,
        published: PublishedSet?,
        status: StatusBoard, log: Log, interval: Double, install: @escaping @Sendable (PublishedSet) -> Void
    ) {
        self.follower = follower
        self.installer = installer
        self.store = store
        self.state = state
        self.published = published
        self.status = status
        self.log = log
        self.interval = interval
        self.install = install
        let generation = published?.manifest.generation
        status.update {
            $0.follow = FollowStatus(primary: follower.manifestURL.absoluteString, servedGeneration: generation)
        }
        job = SerialJob(label: "listserver.follow") { [weak self] isStopping in
            guard let self else { return nil }
            self.poll(isStopping: isStopping)
            return self.interval
        }
    }

    /// Polls at once, then every interval.
    package func start() { job.start() }

    /// An extra poll now (admin refresh), after a running one; one waiting absorbs the next.
    package func trigger() { job.trigger() }

    /// Stops polling. A poll in progress stops before its next request (each one bounded by
    /// `fetch`'s timeouts); `waitUntilIdle(timeout:)` bounds the wait for it.
    package func stop() { job.stop() }

    /// Waits at most `seconds` for a poll in progress; false when it still runs then (its writes
    /// are atomic, so the served set stays the last good one).
    package func waitUntilIdle(timeout seconds: Double) -> Bool { job.waitUntilIdle(timeout: seconds) }

    private func poll(isStopping: @escaping @Sendable () -> Bool) {
        let now = Date()
        do {
            guard let set = try follower.poll(held: published, heldETag: etag, now: now, cancelled: isStopping) else {
                if let current = published, let expired = installer.expire(current, history: &state.history, now: now) {
                    published = expired
                    install(expired)
                    save()
                }
                report(
                    now: now, result: published == nil ? "failed" : "not-modified",
                    error: published == nil ? "the primary serves no set yet" : nil)
                return
            }
            status.update { $0.follow?.primaryGeneration = set.manifest.generation }
            let next = try installer.install(set, over: published, history: &state.history, now: now)
            published = next
            etag = set.manifestETag
            save()
            install(next)
            log.info(
                "installed the primary's manifest \(set.manifestSHA256.prefix(12)) (generation \(set.manifest.generation.map(String.init) ?? "none"))"
            )
            report(now: now, result: "installed", error: nil)
        } catch let error as FollowError {
            if case .refused = error {
                status.update { $0.follow?.refusals += 1 }
            } else {
                status.update { $0.follow?.failures += 1 }
            }
            if case .refused = error {
                log.error("follow: \(error); serving the last good set")
            } else {
                log.info("follow: \(error); serving the last good set")
            }
            report(
                now: now,
                result: {
                    if case .refused = error { return "refused" }
                    return "failed"
                }(), error: error.description)
        } catch {
            status.update { $0.follow?.failures += 1 }
            log.error("follow: installing the primary's set failed: \(error); serving the last good set")
            report(now: now, result: "failed", error: "installing failed: \(error)")
        }
    }

    private func report(now: Date, result: String, error: String?) {
        let generation = published?.manifest.generation
        status.update { status in
            status.follow?.lastAttemptAt = now
            status.follow?.lastResult = result
            status.follow?.lastError = error
            status.follow?.servedGeneration = generation
            if error == nil {
                status.follow?.lastSuccessAt = now
                status.follow?.primaryGeneration = generation
            }
        }
    }

    private func save() {
        do { try store.save(state) } catch { log.error("follow: saving the publish history failed: \(error)") }
    }
}
