import Converter
import Dispatch
import DurableFile
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a `PublishPlan` into a public directory so that a reader (a CDN, the HTTP server, a
/// restart after kill -9) only ever sees a manifest whose every file is fully on disk with the
/// hash the manifest gives: list files first, each by temp file + fsync + rename, the manifest
/// last by atomic rename, the directory fsynced after each rename.
package struct SetWriter: Sendable {
    /// What a write did.
    package struct Outcome: Sendable, Equatable {
        /// False when the manifest on disk already had these exact bytes (nothing was rewritten).
        package var manifestChanged: Bool
        /// Files this write created (identity and gzip), in write order.
        package var createdFiles: [String]
    }

    package var directory: String

    /// Whether `name` exists in the directory.
    package func exists(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: path(name))
    }

    package func path(_ name: String) -> String { directory + "/" + name }

    /// Writes the plan over `previous` (the set the directory, or another one, holds now). Files
    /// `previous` holds intact in this directory are not rewritten; files it holds elsewhere are
    /// hard-linked; every other file is written from the plan's bytes. Nothing is read back or
    /// hashed. Throws `PublishError.write` when the disk refuses; the manifest is then untouched.
    package func write(_ plan: PublishPlan, over previous: PublishedSet? = nil) throws -> Outcome {
        try makeDirectory()
        let sources = FileSources(previous, target: directory)
        // Lists are independent files: they are written on every core at once, so their fsyncs
        // overlap. The manifest still comes after the last of them, and `created` and the error
        // thrown (the first list's, in plan order) do not depend on which finished first.
        let lists = plan.lists
        var results = [Result<[String], Error>](repeating: .success([]), count: lists.count)
        results.withUnsafeMutableBufferPointer { slots in
            let base = slots.baseAddress!
            DispatchQueue.concurrentPerform(iterations: lists.count) { index in
                base[index] = Result { try writeList(lists[index], sources: sources) }
            }
        }
        var created: [String] = []
        for result in results { created += try result.get() }
        let current =
            sources.inPlace
            ? previous?.content.manifest?.identity
            : FileManager.default.contents(atPath: path(PublishPlan.manifestName)).map { Array($0) }
        let changed = current != plan.manifest
        if let signature = plan.signature { try writeSignature(signature) }
        // Before the manifest, so the set it names never lacks its lines; a reader checks each list's hash anyway.
        if let provenance = plan.provenance { try writeIfDifferent(provenance, name: ProvenanceFile.fileName) }
        if changed {
            try atomicWrite(plan.manifest, name: PublishPlan.manifestName)
        }
        // Beside the manifest, after it: these describe the set but no device reads them.
        try writeIfDifferent(plan.report, name: PublishPlan.reportName)
        try writeIfDifferent(plan.layoutState, name: PublishPlan.layoutName)
        return Outcome(manifestChanged: changed, createdFiles: created)
    }

    /// Where the files of the previous set are, and which of them can be taken as they are.
    private struct FileSources {
        /// The previous set lives in the target directory itself.
        var inPlace: Bool
        var directory: String?
        var names: Set<String>

        init(_ previous: PublishedSet?, target: String) {
            inPlace = previous?.directory == target
            directory = previous?.directory
            var names = Set<String>()
            for (name, entry) in previous?.content.files ?? [:] {
                names.insert(name)
                if entry.gzip != nil { names.insert(name + ".gz") }
            }
            self.names = names
        }
    }

    /// Writes one list's identity and gzip files where missing; returns the names it created.
    private func writeList(_ list: PlannedList, sources: FileSources) throws -> [String] {
        var created: [String] = []
        guard let gzip = list.gzip else {
            throw PublishError.compression(list.fileName, "the plan holds no gzip bytes")
        }
        // Patches are written like list files, before the manifest that names them.
        for (name, bytes) in [(list.fileName, list.identity), (list.gzipName, gzip)]
            + list.patches.map({ ($0.fileName, $0.bytes) })
        {
            if sources.names.contains(name) {
                // Known intact (checked when the previous set was loaded, or written by us): only a
                // file removed behind our back is written again.
                if sources.inPlace, exists(name) { continue }
                if let from = sources.directory, !sources.inPlace, link(from + "/" + name, path(name)) == 0 {
                    created.append(name)
                    continue
                }
            }
            try atomicWrite(bytes, name: name)
            created.append(name)
        }
        return created
    }

    private func writeIfDifferent(_ bytes: [UInt8], name: String) throws {
        if let current = FileManager.default.contents(atPath: path(name)), Array(current) == bytes { return }
        try atomicWrite(bytes, name: name)
    }

    func atomicWrite(_ bytes: [UInt8], name: String) throws {
        do {
            try DurableFile.write(bytes, to: path(name))
        } catch let error as DurableFileError {
            throw PublishError.write(error.path, error.reason)
        }
    }

    private func makeDirectory() throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw PublishError.write(directory, "cannot create the directory (\(error.localizedDescription))")
        }
    }

    /// Removes temp files a killed writer left behind. Call only while no other writer uses the directory.
    package func removeStaleTempFiles() {
        DurableFile.removeStaleTempFiles(in: directory)
    }

    package init(directory: String) {
        self.directory = directory
    }
}
