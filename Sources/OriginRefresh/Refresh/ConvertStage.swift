import Converter
import Foundation
import ListFormat
import OriginConfig
import OriginStore

/// The converting half of a refresh: when the upstream copies in use differ from the ones the
/// published set was built from, convert them (with the published set's layout state and lists)
/// and publish through the one publish path. Otherwise only expire files past their grace period.
package struct ConvertStage: Sendable {
    package var configuration: Configuration
    /// Directory `config.json` lives in; relative snapshot paths resolve against it.
    package var baseDirectory: String
    package var store: StateStore
    package var publisher: Publisher
    var converter: ListConverter
    package var log: Log
    /// Label shown in /status for copies that came from the bundled snapshot.
    var snapshotLabel = BundledSnapshot.label
    /// Bounds of the search for lines WebKit rejects (`publish.isolation*`).
    var isolationBounds: PoisonIsolation.Bounds {
        PoisonIsolation.Bounds(configuration.publish)
    }
    /// Test-only, see `IsolatingPublish.reviseOutput`.
    var reviseOutput: (@Sendable (inout ConversionOutput) -> Void)? = nil
    var isolatingPublish: IsolatingPublish {
        IsolatingPublish(
            converter: converter, publisher: publisher, bounds: isolationBounds, log: log, reviseOutput: reviseOutput)
    }

    /// `deadline` says, before a stage, whether the refresh has run past its deadline; then the
    /// refresh stops there and the published set stays.
    func convertIfNeeded(
        state: inout PersistentState, published: inout PublishedSet?, outcome: inout RefreshOutcome, now: Date,
        deadline: (String) -> SetFailure? = { _ in nil }
    ) {
        var sources: [FilterListSource] = []
        var hashes: [String: String] = [:]
        var missing: [String] = []
        for upstream in configuration.upstreams {
            guard let copy = copyInUse(upstream, state: &state, outcome: &outcome) else {
                missing.append(upstream.id)
                continue
            }
            sources.append(FilterListSource(id: upstream.id, bytes: copy))
            hashes[upstream.id] = state.upstreams[upstream.id]?.sha256 ?? SHA256Digest.hex(of: copy)
        }
        if let current = published, state.publishedSources == hashes, missing.isEmpty {
            outcome.set = expireOldFiles(of: current, state: &state, published: &published, outcome: &outcome, now: now)
            return
        }
        // A set of unknown origin (state lost, or written by `listserver convert`) is not replaced by
        // one built partly from the bundled snapshot: it may well be newer.
        if let current = published, state.publishedSources == nil,
            configuration.upstreams.contains(where: { state.upstreams[$0.id]?.source != UpstreamSource.upstream })
        {
            let expired = expireOldFiles(of: current, state: &state, published: &published, outcome: &outcome, now: now)
            if case .unchangedFilesExpired = expired {
                outcome.set = expired
            } else {
                outcome.set = .keptSetOfUnknownOrigin
            }
            return
        }
        if sources.isEmpty || (published != nil && !missing.isEmpty) {
            outcome.set = .failed(.noUsableCopy(missing))
            return
        }
        if let late = deadline("converting") {
            outcome.set = .failed(late)
            return
        }
        let result: IsolatingPublish.Published
        do {
            result = try isolatingPublish.run(
                sources, previous: published, history: &state.history, now: now, deadline: deadline)
        } catch {
            switch error {
            case .conversion(let reason): outcome.set = .failed(.conversion(reason))
            case .publish(let error): outcome.set = .failed(.publish(error))
            case .isolation(let reason): outcome.set = .failed(.isolation(reason))
            case .late(let late): outcome.set = .failed(late)
            }
            return
        }
        state.publishedSources = hashes
        outcome.compiledSeconds = publisher.gate?.compileTimes?.take()
        published = result.outcome.published
        outcome.published = result.outcome.published
        outcome.isolatedLines = result.isolated
        outcome.set = .published(result.outcome, result.output.report)
    }

    /// With nothing new to publish, still remove files whose grace period ended (an upstream can
    /// answer 304 for weeks) and serve a set without them.
    private func expireOldFiles(
        of current: PublishedSet, state: inout PersistentState, published: inout PublishedSet?,
        outcome: inout RefreshOutcome, now: Date
    ) -> SetOutcome {
        let expired = publisher.expireOldFiles(of: current, history: &state.history, now: now)
        let renewed: PublishedSet?
        do {
            renewed = try publisher.renewSignatureIfDue(of: expired?.0 ?? current, history: &state.history, now: now)
        } catch let error as PublishError {
            return .failed(.publish(error))
        } catch {
            return .failed(.publish(.write(publisher.writer.directory, "\(error)")))
        }
        guard let next = renewed ?? expired?.0 else { return .unchanged }
        published = next
        outcome.published = next
        return .unchangedFilesExpired(expired?.1 ?? [])
    }

    /// The last good copy, else the bundled snapshot (recorded as the source in use).
    private func copyInUse(
        _ upstream: Configuration.Upstream, state: inout PersistentState, outcome: inout RefreshOutcome
    ) -> [UInt8]? {
        if let copy = store.lastGoodCopy(upstream.id), state.upstreams[upstream.id]?.source == UpstreamSource.upstream {
            return copy
        }
        guard let snapshot = upstream.snapshot else { return nil }
        let path = snapshot.hasPrefix("/") ? snapshot : baseDirectory + "/" + snapshot
        guard let data = FileManager.default.contents(atPath: path) else {
            log.error("snapshot \(path) for \(upstream.id) cannot be read")
            return nil
        }
        let bytes = Array(data)
        let rules = UpstreamBodyCheck.countRules(bytes)
        state.upstreams[upstream.id] = PersistentState.Upstream.bundledSnapshot(
            label: snapshotLabel, rules: rules, sha256: SHA256Digest.hex(of: bytes))
        outcome.snapshotsInUse.append(
            SnapshotInUse(id: upstream.id, url: upstream.url, label: snapshotLabel, rules: rules))
        return bytes
    }
}
