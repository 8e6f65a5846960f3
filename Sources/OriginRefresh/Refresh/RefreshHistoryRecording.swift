import Converter
import Foundation
import OriginStore

extension RefreshRecord {
    /// The record of one refresh. `previous` are the lists devices held before it (the status
    /// board's lists when the refresh started); `compiled` the gate's compile seconds by list id.
    package init(_ outcome: RefreshOutcome, previous: [OperatorStatus.ListStatus], compiled: [String: Double]) {
        let result = outcome.result
        self.init(at: outcome.startedAt, result: result.label, summary: "")
        guard case .published(let publish, _) = outcome.set, publish.manifestChanged else {
            summary = Self.words(for: result, changed: nil)
            return
        }
        let previousFiles = Dictionary(previous.map { ($0.id, $0.file) }, uniquingKeysWith: { first, _ in first })
        var cost = DeviceCost(bytesWithPatches: 0, bytesWhole: 0, listsToRecompile: 0)
        for list in publish.plan.lists {
            let changed = previousFiles[list.id] != list.fileName
            let gzipBytes = list.gzip?.count ?? list.identity.count
            lists.append(
                ListFigures(
                    id: list.id, file: list.fileName, rules: list.rules, bytes: list.identity.count,
                    gzipBytes: gzipBytes,
                    compileSeconds: changed ? compiled[list.id] : nil, changed: changed))
            rulesByFamily[Self.family(ofList: list.id), default: 0] += list.rules
            guard changed else { continue }
            listsChanged.append(list.id)
            cost.listsToRecompile += 1
            cost.bytesWhole += gzipBytes
            // A device patches from the version it holds when the set offers that patch.
            let held = previousFiles[list.id].flatMap(Self.hashPrefix(ofFile:))
            let patch = held.flatMap { prefix in list.patches.first { $0.from.hasPrefix(prefix) } }
            cost.bytesWithPatches += min(patch?.bytes.count ?? gzipBytes, gzipBytes)
        }
        deviceCost = cost
        summary = Self.words(for: result, changed: (listsChanged.count, lists.count))
    }

    /// `<id>.<sha256 prefix>.json` → the prefix.
    private static func hashPrefix(ofFile name: String) -> String? {
        let parts = name.split(separator: ".")
        return parts.count >= 3 ? String(parts[parts.count - 2]) : nil
    }

    private static func words(for result: RefreshResult, changed: (Int, Int)?) -> String {
        switch result {
        case .published:
            guard let (changed, total) = changed else { return "published" }
            return "published: \(changed) of \(total) lists changed"
        case .unchanged: return "nothing new upstream; the set stays as it is"
        case .failed(let reason): return "failed: \(reason)"
        }
    }
}

extension OperatorStatus.SkippedRules {
    /// Skipped ABP lines by reason across all sources, most frequent first, with one example each.
    package static func summary(of report: ConversionReport) -> [OperatorStatus.SkippedRules] {
        var byReason: [String: OperatorStatus.SkippedRules] = [:]
        for source in report.sources {
            for (reason, tally) in source.skipped {
                var entry = byReason[reason] ?? OperatorStatus.SkippedRules(reason: reason, count: 0, example: nil)
                entry.count += tally.count
                if entry.example == nil { entry.example = tally.examples.first }
                byReason[reason] = entry
            }
        }
        return byReason.values.sorted { $0.count != $1.count ? $0.count > $1.count : $0.reason < $1.reason }
    }
}
