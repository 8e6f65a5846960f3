import Converter
import DictionaryPatchOrigin
import Dispatch
import ListFormat

/// One dcz patch of a plan: from an earlier version of a list to the version the plan publishes.
package struct PlannedPatch: Sendable, Equatable {
    /// Lowercase hex SHA-256 of the old version (the dictionary).
    package var from: String
    /// `<id>.<from sha12>-<to sha12>.dcz`.
    package var fileName: String
    /// Lowercase hex SHA-256 of `bytes`.
    package var sha256: String
    package var bytes: [UInt8]

    var manifestEntry: Manifest.Patch { Manifest.Patch(from: from, file: fileName, sha256: sha256, bytes: bytes.count) }

    package init(from: String, fileName: String, sha256: String, bytes: [UInt8]) {
        self.from = from
        self.fileName = fileName
        self.sha256 = sha256
        self.bytes = bytes
    }
}

/// The dcz patches a publish writes. For every list whose bytes the previous set does not
/// serve yet, one patch from each earlier version of the same id the previous set still serves
/// (the current one and those inside the grace period, the 7 most recent), kept only when
/// `PatchSizeRule` says so. A list the previous set already serves keeps the patches its
/// manifest entry named (they were computed when it was first published).
package struct PatchPlanner: Sendable {
    /// How many earlier versions of one list get a patch.
    static let maximumVersions = 7

    package var encoder = PatchEncoder()

    /// What planning did, for the log and `convert`'s summary.
    package struct Summary: Sendable, Equatable {
        package var encoded = 0
        package var written = 0
        package var seconds = 0.0

        package init(encoded: Int = 0, written: Int = 0, seconds: Double = 0.0) {
            self.encoded = encoded
            self.written = written
            self.seconds = seconds
        }
    }

    /// Fills `patches` of every list in `lists` (their gzip bytes must be known). `expired`: files
    /// of `previous` whose grace period is over (this publish removes them; no patch starts there).
    package func plan(_ lists: inout [PlannedList], previous: PublishedSet?, expired: Set<String> = []) -> Summary {
        guard let previous else { return Summary() }
        let started = DispatchTime.now()
        let versions = earlierVersions(in: previous, excluding: expired)
        var jobs: [(list: Int, old: SiteContent.Entry)] = []
        for index in lists.indices {
            let list = lists[index]
            if previous.content.files[list.fileName]?.sha256 == list.sha256,
                let entry = previous.manifest.lists.first(where: { $0.id == list.id && $0.sha256 == list.sha256 }),
                let known = entry.patches
            {
                lists[index].patches = known.compactMap { patch in
                    guard let file = previous.content.files[patch.file], file.sha256 == patch.sha256 else { return nil }
                    return PlannedPatch(
                        from: patch.from, fileName: patch.file, sha256: patch.sha256, bytes: file.identity)
                }
                continue
            }
            for old in versions[list.id] ?? [] where old.sha256 != list.sha256 {
                jobs.append((index, old))
            }
        }
        // The largest lists first, so no core is left alone with a big one at the end.
        let order = jobs.indices.sorted {
            lists[jobs[$0].list].identity.count > lists[jobs[$1].list].identity.count
                || (lists[jobs[$0].list].identity.count == lists[jobs[$1].list].identity.count && $0 < $1)
        }
        let snapshot = lists
        let encoded: [[UInt8]?] = Parallel.map(order.count) { slot in
            let job = jobs[order[slot]]
            return try? encoder.encode(from: job.old.identity, to: snapshot[job.list].identity)
        }
        var byJob = [[UInt8]?](repeating: nil, count: jobs.count)
        for (slot, job) in order.enumerated() { byJob[job] = encoded[slot] }
        var summary = Summary(encoded: jobs.count)
        for (job, bytes) in zip(jobs, byJob) {
            let list = lists[job.list]
            guard let bytes,
                PatchSizeRule.decide(patchBytes: bytes.count, gzipBytes: list.gzip?.count ?? list.identity.count)
                    == .write,
                let name = PatchFileName(listID: list.id, fromSHA256: job.old.sha256, toSHA256: list.sha256)
            else { continue }
            lists[job.list].patches.append(
                PlannedPatch(
                    from: job.old.sha256, fileName: name.name, sha256: SHA256Digest.hex(of: bytes), bytes: bytes))
            summary.written += 1
        }
        summary.seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        return summary
    }

    /// The list versions a set serves, by id, most recent first (ties by name), at most `maximumVersions` each.
    func earlierVersions(in set: PublishedSet, excluding expired: Set<String> = []) -> [String: [SiteContent.Entry]] {
        var byID: [String: [SiteContent.Entry]] = [:]
        for (name, entry) in set.content.files where !expired.contains(name) {
            guard let id = Self.listID(ofListFile: name) else { continue }
            byID[id, default: []].append(entry)
        }
        return byID.mapValues { entries in
            Array(
                entries.sorted {
                    $0.lastModified > $1.lastModified || ($0.lastModified == $1.lastModified && $0.name < $1.name)
                }
                .prefix(Self.maximumVersions))
        }
    }

    /// The id of `<id>.<12 hex>.json`; nil for gzip siblings, patches and anything else.
    package static func listID(ofListFile name: String) -> String? { PublishedFileNames.listID(ofListFile: name) }
}
