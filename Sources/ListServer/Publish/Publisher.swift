import Converter
import Foundation
import ListSync
#if canImport(Glibc)
import Glibc
#endif

/// The server's publish step: gate every new list, write the set with `SetWriter`, record it in
/// the publish history, and remove files only older manifests name once their grace period is over.
struct Publisher: Sendable {
    /// A list the gate refused, and what was published for its id instead.
    struct GateRejection: Sendable, Equatable {
        var id: String
        var reason: String
        /// True when the list's previous version stayed in the set; false when the id was dropped.
        var keptPrevious: Bool
    }

    struct Outcome: Sendable {
        var plan: PublishPlan
        var manifestChanged: Bool
        var createdFiles: [String]
        var removedFiles: [String]
        var rejections: [GateRejection]
    }

    var writer: SetWriter
    /// Seconds a file only older manifests name stays on disk (and served) after it was superseded.
    var gracePeriod: Double
    var gate: (any PublishGate)?
    var log: Log

    /// Publishes `output`, updating `history` (oldest first).
    func publish(_ output: ConversionOutput, history: inout [PersistentState.PublishRecord], now: Date = Date()) throws -> Outcome {
        let previousManifestBytes = FileManager.default.contents(atPath: writer.path(PublishPlan.manifestName))
        let previous = currentManifest()
        var lists: [RuleList] = []
        var rejections: [GateRejection] = []
        // Only lists whose exact bytes were never published need compiling; one batch for all.
        let pending = gate == nil ? [] : output.lists.indices.filter { !alreadyPublished(output.lists[$0]) }
        var verdicts: [Int: String] = [:]
        if let gate, !pending.isEmpty {
            for (index, verdict) in zip(pending, gate.rejections(of: pending.map { output.lists[$0] })) {
                if let verdict { verdicts[index] = verdict }
            }
        }
        for (index, list) in output.lists.enumerated() {
            guard let reason = verdicts[index] else {
                lists.append(list)
                continue
            }
            if let entry = previous?.lists.first(where: { $0.id == list.id }),
               let bytes = FileManager.default.contents(atPath: writer.path(entry.file)), SHA256.hex(bytes) == entry.sha256 {
                lists.append(RuleList(id: entry.id, json: Array(bytes), ruleCount: entry.rules))
                rejections.append(GateRejection(id: list.id, reason: reason, keptPrevious: true))
            } else {
                rejections.append(GateRejection(id: list.id, reason: reason, keptPrevious: false))
            }
            log.error("publish gate: WebKit rejected list \(list.id): \(reason)")
        }
        if lists.isEmpty { throw PublishError.gateRejectedAll(rejections.map(\.id)) }
        let plan = try PublishPlan.make(lists: lists, report: output.report, layoutState: output.layoutState, gzipExists: writer.exists)
        let written = try writer.write(plan)
        if written.manifestChanged || history.last?.manifestSHA256 != plan.manifestSHA256 {
            // A manifest the history does not know (its state save failed) still starts its files' grace period now.
            if written.manifestChanged, let previous, let bytes = previousManifestBytes,
               !history.contains(where: { $0.manifestSHA256 == SHA256.hex(bytes) }) {
                history.append(PersistentState.PublishRecord(manifestSHA256: SHA256.hex(bytes), publishedAt: now, supersededAt: nil,
                                                             files: previous.lists.flatMap { [$0.file, $0.file + ".gz"] }))
            }
            if let last = history.indices.last, history[last].supersededAt == nil { history[last].supersededAt = now }
            history.append(PersistentState.PublishRecord(manifestSHA256: plan.manifestSHA256, publishedAt: now, supersededAt: nil, files: plan.fileNames))
        }
        let removed = prune(keeping: Set(plan.fileNames), history: &history, now: now)
        if written.manifestChanged {
            log.info("published manifest \(plan.manifestSHA256.prefix(12)): \(plan.lists.count) lists, \(written.createdFiles.count) new files, \(removed.count) expired files removed")
        }
        return Outcome(plan: plan, manifestChanged: written.manifestChanged, createdFiles: written.createdFiles,
                       removedFiles: removed, rejections: rejections)
    }

    /// The manifest on disk now, if readable.
    func currentManifest() -> Manifest? {
        guard let data = FileManager.default.contents(atPath: writer.path(PublishPlan.manifestName)) else { return nil }
        return try? JSONDecoder().decode(Manifest.self, from: data)
    }

    /// A list whose exact bytes are already on disk was gated when first published.
    private func alreadyPublished(_ list: RuleList) -> Bool {
        let hash = SHA256.hex(list.json)
        let name = "\(list.id).\(hash.prefix(PublishPlan.hashPrefixLength)).json"
        guard let data = FileManager.default.contents(atPath: writer.path(name)) else { return false }
        return SHA256.hex(data) == hash
    }

    /// Removes hashed files the current manifest does not name once their grace period is over.
    /// Never touches a file in `keeping`. A file's clock starts at the latest of its mtime and the
    /// time the last manifest naming it was superseded, so lost history only delays removal.
    func prune(keeping: Set<String>, history: inout [PersistentState.PublishRecord], now: Date) -> [String] {
        var removed: [String] = []
        for (name, retiredAt) in retiredFiles(keeping: keeping, history: history) where now.timeIntervalSince(retiredAt) > gracePeriod {
            if unlink(writer.path(name)) == 0 { removed.append(name) }
        }
        if !removed.isEmpty { try? AtomicFile.syncDirectory(writer.directory) }
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

    /// `<id>.<12 hex>.json` or `.json.gz`: the only names the publisher ever removes.
    static func isHashedFileName(_ name: String) -> Bool {
        var base = Substring(name)
        if base.hasSuffix(".gz") { base = base.dropLast(3) }
        guard base.hasSuffix(".json") else { return false }
        base = base.dropLast(5)
        guard let dot = base.lastIndex(of: ".") else { return false }
        let hash = base[base.index(after: dot)...]
        return hash.count == PublishPlan.hashPrefixLength
            && hash.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
            && PublishPlan.isSafeListID(String(base[..<dot]))
    }
}
