import Converter
import Foundation
import ListFormat
import OriginStore

#if canImport(Glibc)
    import Glibc
#endif

/// Installs a `FollowedSet` through the publish path every origin uses: `SetWriter` (each file by
/// temp file + fsync + rename, the signature before the manifest, the manifest last), `Retention`
/// (the publish history; superseded files kept for their grace period), then the set is read back
/// with each file's mtime set to the primary's Last-Modified, so both origins give the same
/// validators, also after a restart.
package struct FollowInstaller: Sendable {
    package var writer: SetWriter
    package var gracePeriod: Double

    package var retention: Retention { Retention(writer: writer, gracePeriod: gracePeriod) }
    package var loader: PublishedSetLoader {
        PublishedSetLoader(writer: writer, gracePeriod: gracePeriod, datesFromFiles: true)
    }

    package func install(
        _ set: FollowedSet, over previous: PublishedSet?, history: inout [PersistentState.PublishRecord],
        now: Date = Date()
    ) throws -> PublishedSet {
        var lists: [PlannedList] = []
        for entry in set.manifest.lists {
            guard let identity = set.lists[entry.file] else {
                throw PublishError.compression(entry.file, "the followed set lacks its bytes")
            }
            // Deterministic gzip (as the primary's), reused when the served set already holds it.
            let gzip: [UInt8]
            if let known = previous?.content.files[entry.file]?.gzip,
                previous?.content.files[entry.file]?.sha256 == entry.sha256
            {
                gzip = known
            } else {
                do { gzip = try Gzip.compress(identity) } catch {
                    throw PublishError.compression(entry.file, "\(error)")
                }
            }
            lists.append(PlannedList(entry, identity: identity, gzip: gzip, patches: set.patches[entry.file] ?? []))
        }
        let report =
            set.sidecars[PublishPlan.reportName]
            ?? FileManager.default.contents(atPath: writer.path(PublishPlan.reportName)).map { Array($0) }
            ?? Array("{}\n".utf8)
        var plan = PublishPlan(
            lists: lists, manifest: set.manifestBytes, manifestSHA256: set.manifestSHA256, report: report,
            layoutState: [],
            signature: PublishedSignature(manifestSHA256: set.manifestSHA256, bytes: set.signature))
        // The primary's provenance, written before the manifest like a converting origin's.
        plan.provenance = set.sidecars[ProvenanceFile.fileName]
        let written = try writer.write(plan, over: previous)
        for list in lists {
            setDate(set.dates[list.fileName], of: list.gzipName)
        }
        for (name, date) in set.dates { setDate(date, of: name) }
        retention.record(
            plan, manifestChanged: written.manifestChanged, previous: previous, history: &history, now: now)
        _ = retention.prune(keeping: Set(plan.fileNames), history: &history, now: now)
        var loaded = try loader.load(history: history, now: now)
        writer.pruneSignatures(of: &loaded, now: now)
        return loaded
    }

    /// Removes files whose grace period ended, and signatures of expired manifests, while the primary
    /// answered 304; the reloaded set, or nil when nothing was removed.
    func expire(_ current: PublishedSet, history: inout [PersistentState.PublishRecord], now: Date = Date())
        -> PublishedSet?
    {
        var keep = Set(current.manifest.lists.flatMap { [$0.file, $0.file + ".gz"] + ($0.patches ?? []).map(\.file) })
        if let last = history.last, last.manifestSHA256 == current.manifestSHA256 { keep.formUnion(last.files) }
        var signaturesLeft = current
        writer.pruneSignatures(of: &signaturesLeft, now: now)
        let signaturesPruned = signaturesLeft.content.signatures.count != current.content.signatures.count
        guard !retention.prune(keeping: keep, history: &history, now: now).isEmpty || signaturesPruned else {
            return nil
        }
        guard var loaded = try? loader.load(history: history, now: now) else { return nil }
        writer.pruneSignatures(of: &loaded, now: now)
        return loaded
    }

    /// Sets a file's mtime (and atime) to `date`, whole seconds as HTTP dates carry.
    private func setDate(_ date: Date?, of name: String) {
        guard let date else { return }
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, writer.path(name), &times, 0)
    }

    package init(writer: SetWriter, gracePeriod: Double) {
        self.writer = writer
        self.gracePeriod = gracePeriod
    }
}
