import Foundation

extension RefreshRecord {
    /// The record of one refresh that ended in `result`; `published` is its publish, when it wrote
    /// one. `previous` are the lists devices held before it (the status board's lists when the
    /// refresh started); `compiled` the gate's compile seconds by list id.
    package init(
        at: Date, result: RefreshResult, published: Publisher.Outcome?, previous: [OperatorStatus.ListStatus],
        compiled: [String: Double]
    ) {
        self.init(at: at, result: result.label, summary: "")
        guard let publish = published, publish.manifestChanged else {
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
