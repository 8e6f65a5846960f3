import Converter
import Foundation
import ListFormat
import OriginConfig
import OriginStore

/// One refresh: fetch every upstream (conditionally, with retries), check each body, keep good
/// copies in the state directory, then let `ConvertStage` convert and publish when the copies in use
/// changed. Whatever fails, the last good copies and the published set stay as they were. Returns
/// what happened as a `RefreshOutcome`; reporting it is the app's job.
package struct FetchStage: Sendable {
    package enum Mode: Sendable {
        /// Fetch upstreams first.
        case online
        /// Use what is on disk (last good copies, else bundled snapshots): the first start without network.
        case offline
    }

    package var configuration: Configuration
    package var store: StateStore
    package var fetcher: CurlFetcher
    var convertStage: ConvertStage
    package var log: Log
    var sleep: @Sendable (Double) -> Void = { Thread.sleep(forTimeInterval: $0) }

    /// Runs one refresh. `published` is the set served now (nil when none) and becomes the new one.
    package func run(
        _ mode: Mode, state: inout PersistentState, published: inout PublishedSet?,
        now: @Sendable () -> Date = { Date() }
    ) -> RefreshOutcome {
        var none: [OtherSet] = []
        return run(mode, state: &state, published: &published, others: &none, now: now)
    }

    /// Runs one refresh of every set: `state` and `published` are the default set's (its state also
    /// holds the shared upstream records), `others` the other sets. Upstreams are fetched once.
    package func run(
        _ mode: Mode, state: inout PersistentState, published: inout PublishedSet?, others: inout [OtherSet],
        now: @Sendable () -> Date = { Date() }
    ) -> RefreshOutcome {
        var outcome = RefreshOutcome(mode: mode, startedAt: now())
        // Local upstreams are read offline too: the file is here, and an edit is taken at start.
        for upstream in configuration.upstreams where mode == .online || upstream.path != nil {
            let at = now()
            let fetched = fetchUpstream(upstream, state: &state, now: at)
            outcome.upstreams.append(UpstreamReport(id: upstream.id, url: upstream.url, at: at, outcome: fetched))
            state.lastAttempts = (state.lastAttempts ?? [:]).merging([upstream.id: fetched.attempt(at: at)]) { $1 }
        }
        if mode == .online { state.lastRefreshAt = outcome.startedAt }
        let deadline = outcome.startedAt.addingTimeInterval(configuration.refresh.deadlineSeconds)
        let late: (String) -> SetFailure? = {
            now() > deadline ? SetFailure.deadline(stage: $0, seconds: configuration.refresh.deadlineSeconds) : nil
        }
        convertStage.convertIfNeeded(
            state: &state, published: &published, outcome: &outcome, now: now(), deadline: late)
        for index in others.indices {
            outcome.otherSets.append(others[index].refresh(shared: &state, mode: mode, now: now(), deadline: late))
        }
        do {
            try store.save(state)
        } catch {
            outcome.stateSaveError = error
        }
        return outcome
    }

    /// Fetches one upstream and, when its body passes the checks, keeps it as the last good copy.
    private func fetchUpstream(_ upstream: Configuration.Upstream, state: inout PersistentState, now: Date)
        -> UpstreamOutcome
    {
        let record = state.upstreams[upstream.id]
        let lastGood = store.lastGoodCopy(upstream.id)
        // Validators only make sense for the exact copy we still hold.
        let validators =
            (record?.source == UpstreamSource.upstream && lastGood != nil)
            ? Validators(etag: record?.etag, lastModified: record?.lastModified) : nil
        let policy = RetryPolicy(configuration.refresh)
        let fetched: FetchResult
        do {
            if let path = upstream.path {
                fetched = try LocalUpstreamFile(path: path, maxBodyBytes: configuration.fetch.maxBodyBytes).read()
            } else {
                fetched = try policy.run(log: log.child(upstream.id), what: "fetch \(upstream.url)", sleep: sleep) {
                    () throws(FetchError) -> FetchResult in
                    try fetcher.fetch(upstream.url, validators: validators)
                }
            }
        } catch {
            return .fetchFailed(error)
        }
        guard case .body(let body, let newValidators) = fetched else { return .notModified }
        let check = UpstreamBodyCheck(
            requiredHeader: upstream.requiredHeader, minimumRuleShare: configuration.refresh.minimumRuleShare,
            maxBodyBytes: configuration.fetch.maxBodyBytes)
        let baseline = record?.rules ?? lastGood.map(UpstreamBodyCheck.countRules)
        let accepted: (text: [UInt8], rules: Int)
        do {
            accepted = try check.check(body, baselineRules: baseline)
        } catch {
            return .rejected(
                error,
                kept: Result { () throws(StateError) -> String in
                    try store.keepRejected(body, upstreamID: upstream.id, at: now)
                })
        }
        let hash = SHA256Digest.hex(of: accepted.text)
        do {
            if lastGood.map({ SHA256Digest.hex(of: $0) }) != hash {
                try store.saveLastGoodCopy(accepted.text, upstreamID: upstream.id)
            }
        } catch {
            return .keepFailed(error)
        }
        let copy = PersistentState.Upstream.fetched(
            etag: newValidators.etag, lastModified: newValidators.lastModified, at: now, rules: accepted.rules,
            sha256: hash)
        state.upstreams[upstream.id] = copy
        return .updated(copy, bytes: accepted.text.count)
    }
}

/// The snapshot shipped in `snapshot/`: Debian's webext-ublock-origin-firefox 1.67.0 copy of
/// EasyList/EasyPrivacy, packaged October 2025 (see snapshot/SOURCES.md). Update with the files.
package enum BundledSnapshot {
    package static let label = "2025-10"
}
