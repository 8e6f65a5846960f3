import Converter
import Foundation
import OriginConfig
import OriginStore

/// The one place a `RefreshOutcome` becomes what operators see: /status fields (and so the
/// /metrics built from them), the refresh history of the status page, and log lines.
package struct RefreshReporting: Sendable {
    package var status: StatusBoard
    /// The refresh log; each upstream logs under its own child label.
    package var log: Log
    /// Where each reported refresh is recorded (attached to `status` for the page); nil keeps none.
    package var history: RefreshHistory?
    /// The publish gate's compile times, taken after each refresh.
    package var compileTimes: CompileTimes?

    package init(status: StatusBoard, log: Log, history: RefreshHistory? = nil, compileTimes: CompileTimes? = nil) {
        self.status = status
        self.log = log
        self.history = history
        self.compileTimes = compileTimes
        if let history { status.history = history }
    }

    package func report(_ outcome: RefreshOutcome) {
        let heldLists = status.current.lists
        for upstream in outcome.upstreams { report(upstream) }
        for snapshot in outcome.snapshotsInUse {
            status.update { board in
                var entry =
                    board.upstreams.first { $0.id == snapshot.id }
                    ?? OperatorStatus.UpstreamStatus(
                        id: snapshot.id, url: snapshot.url, source: UpstreamSource.bundledSnapshot)
                entry.source = UpstreamSource.bundledSnapshot
                entry.sourceDate = snapshot.label
                entry.rules = snapshot.rules
                board.upstreams.removeAll { $0.id == snapshot.id }
                board.upstreams.append(entry)
            }
        }
        switch outcome.set {
        case .unchanged:
            break
        case .unchangedFilesExpired(let removed):
            log.info("refresh: removed \(removed.count) files past the grace period")
        case .keptSetOfUnknownOrigin:
            log.warning("refresh: keeping the published set of unknown origin until every upstream has been fetched")
        case .published(let publish, let report):
            recordPublished(
                publish, report: report, at: publish.published.content.manifest?.lastModified ?? outcome.startedAt)
            status.update {
                $0.isolatedLines = outcome.isolatedLines
                if let comparison = publish.compileComparison { $0.compileRegression = comparison }
            }
        case .failed(let failure):
            switch failure {
            case .noUsableCopy, .deadline: log.error("refresh: \(failure)")
            case .conversion(let reason): log.error("refresh: conversion failed: \(reason); keeping the published set")
            case .publish(.compileRegression(let comparison)):
                log.error("refresh: \(failure)")
                status.update { $0.compileRegression = comparison }
            case .publish, .isolation: log.error("refresh: \(failure)")
            }
        }
        if let error = outcome.stateSaveError { log.error("refresh: \(error)") }
        let result = outcome.result
        // An offline pass that found nothing to do is not a refresh worth reporting.
        guard outcome.mode == .online || result != .unchanged else { return }
        let error: String? = if case .failed(let reason) = result { reason } else { outcome.problemsBesidePublish }
        status.update {
            $0.lastRefresh = OperatorStatus.RefreshStatus(
                at: outcome.startedAt, result: result.label, error: error, nextAt: $0.lastRefresh?.nextAt)
        }
        do {
            try history?.append(
                RefreshRecord(
                    outcome, previous: heldLists, compiled: outcome.compiledSeconds ?? compileTimes?.take() ?? [:]))
        } catch {
            log.error("refresh history: \(error)")
        }
    }

    private func report(_ upstream: UpstreamReport) {
        let fetchLog = log.child(upstream.id)
        update(upstream) { entry in
            entry.lastResult = upstream.outcome.label
            switch upstream.outcome {
            case .updated(let copy, let bytes):
                fetchLog.info("fetched \(bytes) bytes, \(copy.rules) rules")
                entry.source = copy.source
                entry.sourceDate = copy.sourceDate
                entry.lastHTTPStatus = 200
                entry.lastError = nil
                entry.etag = copy.etag
                entry.lastModified = copy.lastModified
                entry.rules = copy.rules
            case .notModified:
                fetchLog.info("not modified (304); keeping the copy in use")
                entry.lastHTTPStatus = 304
                entry.lastError = nil
            case .rejected(let rejection, let kept):
                let keptNote =
                    switch kept {
                    case .success(let path): "; body kept at " + path
                    case .failure(let error): "; could not keep it: \(error)"
                    }
                fetchLog.error("rejected: \(rejection)\(keptNote); the last good copy stays in use")
                entry.lastHTTPStatus = 200
                entry.lastError = "rejected: \(rejection)\(keptNote)"
            case .fetchFailed(let error):
                if case .httpStatus(_, let code) = error {
                    entry.lastHTTPStatus = code
                } else {
                    entry.lastHTTPStatus = nil
                }
                entry.lastError = error.description
            case .keepFailed(let error):
                fetchLog.error("\(error); the previous copy stays in use")
                entry.lastHTTPStatus = 200
                entry.lastError = "\(error)"
            }
        }
    }

    /// Fills the list part of /status from a set just published.
    private func recordPublished(_ outcome: Publisher.Outcome, report: ConversionReport, at now: Date) {
        let lists = outcome.plan.lists.map {
            OperatorStatus.ListStatus(
                id: $0.id, file: $0.fileName, rules: $0.rules, bytes: $0.identity.count, gzipBytes: $0.gzip?.count ?? 0)
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
            $0.skippedRules = OperatorStatus.SkippedRules.summary(of: report)
        }
    }

    /// Fills /status from the state directory, before anything runs.
    package func seed(upstreams: [Configuration.Upstream], state: PersistentState) {
        status.update { board in
            board.upstreams = upstreams.map { upstream in
                let record = state.upstreams[upstream.id]
                let attempt = state.lastAttempts?[upstream.id]
                return OperatorStatus.UpstreamStatus(
                    id: upstream.id, url: upstream.url, source: record?.source ?? UpstreamSource.bundledSnapshot,
                    sourceDate: record?.sourceDate ?? (record == nil ? BundledSnapshot.label : nil),
                    lastFetchAt: record?.fetchedAt,
                    lastAttemptAt: attempt?.at, lastResult: attempt?.result, lastHTTPStatus: attempt?.httpStatus,
                    etag: record?.etag, lastModified: record?.lastModified, lastError: attempt?.error,
                    rules: record?.rules)
            }
        }
    }

    /// Fills the list part of /status from a set loaded at start.
    package func recordLoaded(_ set: PublishedSet) {
        // The conversion report beside the manifest gives the skipped rules (read before taking the lock).
        let reportPath = set.directory + "/" + PublishPlan.reportName
        let skipped = FileManager.default.contents(atPath: reportPath)
            .flatMap { try? JSONDecoder().decode(ConversionReport.self, from: $0) }.map(
                OperatorStatus.SkippedRules.summary(of:))
        status.update { board in
            board.manifestSHA256 = set.content.manifest?.sha256
            board.generatedAt = set.content.manifest?.lastModified
            board.lists = set.manifest.lists.map { list in
                let entry = set.content.files[list.file]
                return OperatorStatus.ListStatus(
                    id: list.id, file: list.file, rules: list.rules,
                    bytes: entry?.identity.count ?? 0, gzipBytes: entry?.gzip?.count ?? 0)
            }
            if let skipped { board.skippedRules = skipped }
        }
    }

    private func update(_ upstream: UpstreamReport, _ change: (inout OperatorStatus.UpstreamStatus) -> Void) {
        status.update { board in
            var entry =
                board.upstreams.first { $0.id == upstream.id }
                ?? OperatorStatus.UpstreamStatus(
                    id: upstream.id, url: upstream.url, source: UpstreamSource.bundledSnapshot)
            entry.lastAttemptAt = upstream.at
            if upstream.outcome.isCurrent { entry.lastFetchAt = upstream.at }
            change(&entry)
            if let index = board.upstreams.firstIndex(where: { $0.id == upstream.id }) {
                board.upstreams[index] = entry
            } else {
                board.upstreams.append(entry)
            }
        }
    }
}
