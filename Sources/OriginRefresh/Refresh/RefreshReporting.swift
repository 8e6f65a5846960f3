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
                var entry = board.upstream(id: snapshot.id, url: snapshot.url)
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
                at: outcome.startedAt, result: result, error: error, nextAt: $0.lastRefresh?.nextAt)
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
        let lists = outcome.plan.lists.map(OperatorStatus.ListStatus.init)
        let summary = OperatorStatus.ConversionSummary(
            report, outputRules: outcome.plan.lists.reduce(0) { $0 + $1.rules })
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
            board.upstreams = upstreams.map {
                OperatorStatus.UpstreamStatus($0, state: state, snapshotLabel: BundledSnapshot.label)
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
            board.lists = OperatorStatus.ListStatus.lists(of: set)
            if let skipped { board.skippedRules = skipped }
        }
    }

    private func update(_ upstream: UpstreamReport, _ change: (inout OperatorStatus.UpstreamStatus) -> Void) {
        status.update { board in
            var entry = board.upstream(id: upstream.id, url: upstream.url)
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
