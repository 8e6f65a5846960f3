import DictionaryPatchOrigin
import DurableFile
import Foundation

#if canImport(Glibc)
    import Glibc
    import ListFormat
#endif

/// How long superseded files stay: the publish history (which manifest named which files, and when
/// it was superseded) and the pruning of files only older manifests name once their grace period is over.
package struct Retention: Sendable {
    package var writer: SetWriter
    /// Seconds a file only older manifests name stays on disk (and served) after it was superseded.
    package var gracePeriod: Double

    /// Records a publish in `history` (oldest first). A previous manifest the history does not know
    /// (its state save failed, or the state was lost) still starts its files' grace period now.
    package func record(
        _ plan: PublishPlan, manifestChanged: Bool, previous: PublishedSet?,
        history: inout [PersistentState.PublishRecord], now: Date
    ) {
        guard manifestChanged || history.last?.manifestSHA256 != plan.manifestSHA256 else { return }
        if manifestChanged, let previous, let hash = previous.manifestSHA256,
            !history.contains(where: { $0.manifestSHA256 == hash })
        {
            history.append(
                PersistentState.PublishRecord(
                    manifestSHA256: hash, publishedAt: now, supersededAt: nil,
                    files: previous.manifest.lists.flatMap {
                        [$0.file, $0.file + ".gz"] + ($0.patches ?? []).map(\.file)
                    }))
        }
        if let last = history.indices.last, history[last].supersededAt == nil { history[last].supersededAt = now }
        history.append(
            PersistentState.PublishRecord(
                manifestSHA256: plan.manifestSHA256, publishedAt: now, supersededAt: nil, files: plan.fileNames))
    }

    /// Removes hashed files the current manifest does not name once their grace period is over.
    /// Never touches a file in `keeping`. A file's clock starts at the latest of its mtime and the
    /// time the last manifest naming it was superseded, so lost history only delays removal.
    package func prune(keeping: Set<String>, history: inout [PersistentState.PublishRecord], now: Date) -> [String] {
        var removed: [String] = []
        for (name, retiredAt) in retiredFiles(keeping: keeping, history: history)
        where now.timeIntervalSince(retiredAt) > gracePeriod {
            if unlink(writer.path(name)) == 0 { removed.append(name) }
        }
        if !removed.isEmpty { try? DurableFile.syncDirectory(writer.directory) }
        // Forget superseded manifests whose files are all gone or live on in the current set.
        history.removeAll { record in
            record.supersededAt != nil && record.files.allSatisfy { keeping.contains($0) || !writer.exists($0) }
        }
        return removed.sorted()
    }

    /// Hashed files on disk that `keeping` does not name, with the time their grace period started.
    func retiredFiles(keeping: Set<String>, history: [PersistentState.PublishRecord]) -> [(String, Date)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: writer.directory) else { return [] }
        var supersededAt: [String: Date] = [:]
        for record in history {
            let until = record.supersededAt ?? .distantFuture
            for file in record.files { supersededAt[file] = max(supersededAt[file] ?? .distantPast, until) }
        }
        var result: [(String, Date)] = []
        for name in names where Self.isHashedFileName(name) && !keeping.contains(name) {
            var info = stat()
            guard stat(writer.path(name), &info) == 0 else { continue }
            let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec))
            result.append((name, max(modified, supersededAt[name] ?? .distantPast)))
        }
        return result
    }

    /// `<id>.<12 hex>.json`, `.json.gz` or a patch `<id>.<12 hex>-<12 hex>.dcz`: the only names the publisher ever removes.
    static func isHashedFileName(_ name: String) -> Bool { PublishedFileNames.isHashedFile(name) }

    package init(writer: SetWriter, gracePeriod: Double) {
        self.writer = writer
        self.gracePeriod = gracePeriod
    }
}
