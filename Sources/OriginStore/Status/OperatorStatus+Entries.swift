import Converter
import Foundation
import OriginConfig

// How the store's values become status entries: written here, beside the types, so the entries'
// memberwise initialisers stay internal and every module builds them the same way.

extension OperatorStatus.ListStatus {
    /// A list of a set about to be published.
    package init(_ list: PlannedList) {
        self.init(
            id: list.id, file: list.fileName, rules: list.rules, bytes: list.identity.count,
            gzipBytes: list.gzip?.count ?? 0)
    }

    /// The lists of a set loaded from disk, sized by the files it serves.
    package static func lists(of set: PublishedSet) -> [Self] {
        set.manifest.lists.map { list in
            let entry = set.content.files[list.file]
            return Self(
                id: list.id, file: list.file, rules: list.rules, bytes: entry?.identity.count ?? 0,
                gzipBytes: entry?.gzip?.count ?? 0)
        }
    }
}

extension OperatorStatus.UpstreamStatus {
    /// An upstream as the state directory left it, before anything runs: without a record of its copy
    /// it is on the bundled snapshot labelled `snapshotLabel`.
    package init(_ upstream: Configuration.Upstream, state: PersistentState, snapshotLabel: String) {
        let record = state.upstreams[upstream.id]
        let attempt = state.lastAttempts?[upstream.id]
        self.init(
            id: upstream.id, url: upstream.url, source: record?.source ?? UpstreamSource.bundledSnapshot,
            sourceDate: record?.sourceDate ?? (record == nil ? snapshotLabel : nil), lastFetchAt: record?.fetchedAt,
            lastAttemptAt: attempt?.at, lastResult: attempt?.result, lastHTTPStatus: attempt?.httpStatus,
            etag: record?.etag, lastModified: record?.lastModified, lastError: attempt?.error, rules: record?.rules)
    }
}

extension OperatorStatus {
    /// The board's entry for an upstream, or a new one on the bundled snapshot when it has none yet.
    package func upstream(id: String, url: String) -> UpstreamStatus {
        upstreams.first { $0.id == id } ?? UpstreamStatus(id: id, url: url, source: UpstreamSource.bundledSnapshot)
    }
}

extension OperatorStatus.RefreshStatus {
    package init(at: Date, result: RefreshResult, error: String?, nextAt: Date?) {
        self.init(at: at, result: result.label, error: error, nextAt: nextAt)
    }
}

extension OperatorStatus.ConversionSummary {
    /// The totals of a conversion report; `outputRules` from the lists published.
    package init(_ report: ConversionReport, outputRules: Int) {
        var skippedByReason: [String: Int] = [:]
        for source in report.sources {
            for (reason, tally) in source.skipped { skippedByReason[reason, default: 0] += tally.count }
        }
        self.init(
            inputRules: report.sources.reduce(0) { $0 + $1.rules },
            converted: report.sources.reduce(0) { $0 + $1.converted },
            skipped: skippedByReason.values.reduce(0, +), skippedByReason: skippedByReason, outputRules: outputRules)
    }
}

extension OperatorStatus.SkippedRules {
    /// Skipped ABP lines by reason across all sources, most frequent first, with one example each.
    package static func summary(of report: ConversionReport) -> [Self] {
        var byReason: [String: Self] = [:]
        for source in report.sources {
            for (reason, tally) in source.skipped {
                var entry = byReason[reason] ?? Self(reason: reason, count: 0, example: nil)
                entry.count += tally.count
                if entry.example == nil { entry.example = tally.examples.first }
                byReason[reason] = entry
            }
        }
        return byReason.values.sorted { $0.count != $1.count ? $0.count > $1.count : $0.reason < $1.reason }
    }
}
