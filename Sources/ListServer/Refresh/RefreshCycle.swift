import Converter
import Foundation
import ListSync

/// One refresh: fetch every upstream (conditionally, with retries), check each body, keep good
/// copies in the state directory, and convert + publish only when the copies in use changed.
/// Whatever fails, the last good copies and the published set stay as they were.
struct RefreshCycle: Sendable {
    enum Mode: Sendable {
        /// Fetch upstreams first.
        case online
        /// Use what is on disk (last good copies, else bundled snapshots): the first start without network.
        case offline
    }

    enum Result: Sendable, Equatable {
        case published
        case unchanged
        case failed(String)

        var label: String {
            switch self {
            case .published: return "published"
            case .unchanged: return "unchanged"
            case .failed: return "failed"
            }
        }
    }

    struct Summary: Sendable {
        var result: Result
        /// The generation to serve when the set changed (nil otherwise).
        var content: SiteContent?
    }

    var configuration: Configuration
    /// Directory `config.json` lives in; relative snapshot paths resolve against it.
    var baseDirectory: String
    var store: StateStore
    var publisher: Publisher
    var fetcher: CurlFetcher
    var converter: ListConverter
    var status: StatusBoard
    var log: Log
    var sleep: @Sendable (Double) -> Void = { Thread.sleep(forTimeInterval: $0) }
    /// Label shown in /status for copies that came from the bundled snapshot.
    var snapshotLabel = BundledSnapshot.label

    func run(_ mode: Mode, state: inout PersistentState, now: @Sendable () -> Date = { Date() }) -> Summary {
        let started = now()
        var problems: [String] = []
        if mode == .online {
            for upstream in configuration.upstreams {
                if let problem = fetchUpstream(upstream, state: &state, now: now()) { problems.append("\(upstream.id): \(problem)") }
            }
            state.lastRefreshAt = started
        }
        var summary = convertIfNeeded(state: &state, now: now())
        do {
            try store.save(state)
        } catch {
            log.error("refresh: \(error)")
            problems.append("\(error)")
        }
        // An upstream that could not be refreshed makes an otherwise unchanged refresh a failure.
        if summary.result == .unchanged, !problems.isEmpty { summary.result = .failed(problems.joined(separator: "; ")) }
        var error: String? = if case .failed(let reason) = summary.result { reason } else { nil }
        if summary.result == .published, !problems.isEmpty { error = problems.joined(separator: "; ") }
        // An offline pass that found nothing to do is not a refresh worth reporting.
        if mode == .online || summary.result != .unchanged {
            status.update {
                $0.lastRefresh = OperatorStatus.RefreshStatus(at: started, result: summary.result.label, error: error, nextAt: $0.lastRefresh?.nextAt)
            }
        }
        return summary
    }

    // MARK: fetching

    /// Fetches one upstream; returns what went wrong, or nil when the copy in use is current.
    private func fetchUpstream(_ upstream: Configuration.Upstream, state: inout PersistentState, now: Date) -> String? {
        let record = state.upstreams[upstream.id]
        let lastGood = store.lastGoodCopy(upstream.id)
        // Validators only make sense for the exact copy we still hold.
        let validators = (record?.source == UpstreamSource.upstream && lastGood != nil)
            ? Validators(etag: record?.etag, lastModified: record?.lastModified) : nil
        let policy = RetryPolicy(configuration.refresh)
        let fetchLog = log.child(upstream.id)
        let fetched: FetchResult
        do {
            fetched = try policy.run(log: fetchLog, what: "fetch \(upstream.url)", sleep: sleep) { () throws(FetchError) -> FetchResult in
                try fetcher.fetch(upstream.url, validators: validators)
            }
        } catch {
            var code: Int?
            if case .httpStatus(_, let status) = error { code = status }
            updateStatus(upstream, at: now) {
                $0.lastResult = "failed"
                $0.lastHTTPStatus = code
                $0.lastError = error.description
            }
            return error.description
        }
        switch fetched {
        case .notModified:
            fetchLog.info("not modified (304); keeping the copy in use")
            updateStatus(upstream, at: now) {
                $0.lastResult = "not-modified"
                $0.lastHTTPStatus = 304
                $0.lastError = nil
            }
        case .body(let body, let newValidators):
            let check = UpstreamBodyCheck(requiredHeader: upstream.requiredHeader, minimumRuleShare: configuration.refresh.minimumRuleShare,
                                          maxBodyBytes: configuration.fetch.maxBodyBytes)
            let baseline = record?.rules ?? lastGood.map(UpstreamBodyCheck.countRules)
            let accepted: (text: [UInt8], rules: Int)
            do {
                accepted = try check.check(body, baselineRules: baseline)
            } catch {
                var kept = ""
                do {
                    kept = "; body kept at " + (try store.keepRejected(body, upstreamID: upstream.id, at: now))
                } catch let keepError {
                    kept = "; could not keep it: \(keepError)"
                }
                fetchLog.error("rejected: \(error)\(kept); the last good copy stays in use")
                updateStatus(upstream, at: now) {
                    $0.lastResult = "rejected"
                    $0.lastHTTPStatus = 200
                    $0.lastError = "rejected: \(error)\(kept)"
                }
                return "rejected: \(error)"
            }
            let hash = SHA256.hex(accepted.text)
            do {
                if lastGood.map({ SHA256.hex($0) }) != hash {
                    try store.saveLastGoodCopy(accepted.text, upstreamID: upstream.id)
                }
            } catch {
                fetchLog.error("\(error); the previous copy stays in use")
                updateStatus(upstream, at: now) {
                    $0.lastResult = "failed"
                    $0.lastHTTPStatus = 200
                    $0.lastError = "\(error)"
                }
                return "\(error)"
            }
            let fetchDate = ISO8601DateFormatter().string(from: now)
            state.upstreams[upstream.id] = PersistentState.Upstream(
                etag: newValidators.etag, lastModified: newValidators.lastModified, source: UpstreamSource.upstream,
                sourceDate: fetchDate, fetchedAt: now, rules: accepted.rules, sha256: hash)
            fetchLog.info("fetched \(accepted.text.count) bytes, \(accepted.rules) rules")
            updateStatus(upstream, at: now) {
                $0.source = UpstreamSource.upstream
                $0.sourceDate = fetchDate
                $0.lastResult = "updated"
                $0.lastHTTPStatus = 200
                $0.lastError = nil
                $0.etag = newValidators.etag
                $0.lastModified = newValidators.lastModified
                $0.rules = accepted.rules
            }
        }
        return nil
    }

    // MARK: converting and publishing

    private func convertIfNeeded(state: inout PersistentState, now: Date) -> Summary {
        var sources: [FilterListSource] = []
        var hashes: [String: String] = [:]
        var missing: [String] = []
        for upstream in configuration.upstreams {
            guard let copy = copyInUse(upstream, state: &state) else {
                missing.append(upstream.id)
                continue
            }
            sources.append(FilterListSource(id: upstream.id, bytes: copy))
            hashes[upstream.id] = state.upstreams[upstream.id]?.sha256 ?? SHA256.hex(copy)
        }
        let current = publisher.currentManifest()
        if let current, state.publishedSources == hashes, missing.isEmpty {
            return expireOldFiles(keeping: current, state: &state, now: now)
        }
        // A set of unknown origin (state lost, or written by `listserver convert`) is not replaced by
        // one built partly from the bundled snapshot: it may well be newer.
        if let current, state.publishedSources == nil,
           configuration.upstreams.contains(where: { state.upstreams[$0.id]?.source != UpstreamSource.upstream }) {
            log.warning("refresh: keeping the published set of unknown origin until every upstream has been fetched")
            return expireOldFiles(keeping: current, state: &state, now: now)
        }
        let hasSet = current != nil
        if sources.isEmpty || (hasSet && !missing.isEmpty) {
            let reason = "no usable copy of \(missing.joined(separator: ", ")) (no last good copy and no readable snapshot); keeping the published set"
            log.error("refresh: \(reason)")
            return Summary(result: .failed(reason), content: nil)
        }
        let previousLayout = store.layoutState()
            ?? FileManager.default.contents(atPath: publisher.writer.path(PublishPlan.layoutName)).map { Array($0) }
        let output: ConversionOutput
        do {
            output = try converter.convert(sources, previousLayout: previousLayout)
        } catch {
            log.error("refresh: conversion failed: \(error); keeping the published set")
            return Summary(result: .failed("conversion failed: \(error)"), content: nil)
        }
        let outcome: Publisher.Outcome
        do {
            outcome = try publisher.publish(output, history: &state.history, now: now)
        } catch {
            log.error("refresh: publish failed: \(error)")
            return Summary(result: .failed("publish failed: \(error)"), content: nil)
        }
        state.publishedSources = hashes
        do {
            try store.saveReport(outcome.plan.report)
            try store.saveLayout(outcome.plan.layoutState)
        } catch {
            log.warning("refresh: \(error)")
        }
        let content: SiteContent
        do {
            content = try SiteContentLoader(publisher: publisher).load(history: state.history, now: now).0
        } catch {
            return Summary(result: .failed("the set just published does not load back: \(error)"), content: nil)
        }
        recordPublished(outcome, report: output.report, at: now)
        if !outcome.rejections.isEmpty {
            let text = outcome.rejections.map { "\($0.id): \($0.reason) (\($0.keptPrevious ? "previous version kept" : "list left out"))" }
            return Summary(result: .failed("WebKit rejected \(text.joined(separator: "; "))"), content: content)
        }
        return Summary(result: outcome.manifestChanged ? .published : .unchanged, content: content)
    }

    /// With nothing new to publish, still remove files whose grace period ended (an upstream can
    /// answer 304 for weeks) and serve a generation without them.
    private func expireOldFiles(keeping manifest: ListSync.Manifest, state: inout PersistentState, now: Date) -> Summary {
        let keep = Set(manifest.lists.flatMap { [$0.file, $0.file + ".gz"] })
        let removed = publisher.prune(keeping: keep, history: &state.history, now: now)
        guard !removed.isEmpty else { return Summary(result: .unchanged, content: nil) }
        log.info("refresh: removed \(removed.count) files past the grace period")
        let content = try? SiteContentLoader(publisher: publisher).load(history: state.history, now: now).0
        return Summary(result: .unchanged, content: content)
    }

    /// The last good copy, else the bundled snapshot (recorded as the source in use).
    private func copyInUse(_ upstream: Configuration.Upstream, state: inout PersistentState) -> [UInt8]? {
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
        state.upstreams[upstream.id] = PersistentState.Upstream(
            etag: nil, lastModified: nil, source: UpstreamSource.bundledSnapshot, sourceDate: snapshotLabel,
            fetchedAt: nil, rules: rules, sha256: SHA256.hex(bytes))
        let label = snapshotLabel
        status.update { board in
            var entry = board.upstreams.first { $0.id == upstream.id } ?? OperatorStatus.UpstreamStatus(id: upstream.id, url: upstream.url, source: UpstreamSource.bundledSnapshot)
            entry.source = UpstreamSource.bundledSnapshot
            entry.sourceDate = label
            entry.rules = rules
            board.upstreams.removeAll { $0.id == upstream.id }
            board.upstreams.append(entry)
        }
        return bytes
    }

    private func recordPublished(_ outcome: Publisher.Outcome, report: ConversionReport, at now: Date) {
        let lists = outcome.plan.lists.map {
            OperatorStatus.ListStatus(id: $0.id, file: $0.fileName, rules: $0.rules, bytes: $0.identity.count,
                                      gzipBytes: (try? FileManager.default.attributesOfItem(atPath: publisher.writer.path($0.gzipName)))?[.size] as? Int ?? 0)
        }
        var skippedByReason: [String: Int] = [:]
        for source in report.sources {
            for (reason, tally) in source.skipped { skippedByReason[reason, default: 0] += tally.count }
        }
        let summary = OperatorStatus.ConversionSummary(
            inputRules: report.sources.reduce(0) { $0 + $1.rules },
            converted: report.sources.reduce(0) { $0 + $1.converted },
            skipped: skippedByReason.values.reduce(0, +),
            skippedByReason: skippedByReason,
            outputRules: outcome.plan.lists.reduce(0) { $0 + $1.rules })
        status.update {
            if outcome.manifestChanged || $0.manifestSHA256 != outcome.plan.manifestSHA256 {
                $0.manifestSHA256 = outcome.plan.manifestSHA256
                $0.generatedAt = now
            }
            $0.lists = lists
            $0.conversion = summary
        }
    }

    private func updateStatus(_ upstream: Configuration.Upstream, at now: Date, _ change: (inout OperatorStatus.UpstreamStatus) -> Void) {
        status.update { board in
            var entry = board.upstreams.first { $0.id == upstream.id }
                ?? OperatorStatus.UpstreamStatus(id: upstream.id, url: upstream.url, source: UpstreamSource.bundledSnapshot)
            entry.lastFetchAt = now
            change(&entry)
            if let index = board.upstreams.firstIndex(where: { $0.id == upstream.id }) {
                board.upstreams[index] = entry
            } else {
                board.upstreams.append(entry)
            }
        }
    }
}

/// Values of `OperatorStatus.UpstreamStatus.source`.
enum UpstreamSource {
    static let upstream = "upstream"
    static let bundledSnapshot = "bundled-snapshot"
}

/// The snapshot shipped in `snapshot/`: Debian's webext-ublock-origin-firefox 1.67.0 copy of
/// EasyList/EasyPrivacy, packaged October 2025 (see snapshot/SOURCES.md). Update with the files.
enum BundledSnapshot {
    static let label = "2025-10"
}
