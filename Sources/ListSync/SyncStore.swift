import DurableFile
import Foundation

/// The device's on-disk store, content-addressed by SHA-256:
///
///     DIR/state.json               the last fully synced manifest (SyncState)
///     DIR/lists/<sha256>.json      one file per list body, named by its hash
///
/// A file is written only after its hash checked out, and always durably (`DurableFile`: a fsynced
/// temporary file, a rename, a fsynced directory), so a crash leaves either the old or the new bytes. Because names are hashes, writing a
/// new file never disturbs the set the current state names.
public struct SyncStore: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    var stateURL: URL { directory.appendingPathComponent("state.json") }
    var listsDirectory: URL { directory.appendingPathComponent("lists", isDirectory: true) }

    /// Where the body with this hash lives; the app hands this file to WebKit.
    public func fileURL(sha256: String) -> URL {
        listsDirectory.appendingPathComponent(sha256 + ".json")
    }

    public func contains(sha256: String) -> Bool {
        FileManager.default.fileExists(atPath: fileURL(sha256: sha256).path)
    }

    /// Whether the stored body for this hash is present and still hashes to its name. A body that
    /// fails (disk corruption, a stray edit) is removed so the next download replaces it.
    func holdsIntact(sha256: String) -> Bool {
        let url = fileURL(sha256: sha256)
        guard let data = FileManager.default.contents(atPath: url.path) else { return false }
        if SHA256Digest.hex(of: data) == sha256 { return true }
        try? FileManager.default.removeItem(at: url)
        return false
    }

    /// One list of the last fully synced set, as an app hands it to WebKit.
    public struct SyncedList: Sendable, Equatable {
        public var id: String
        public var sha256: String
        public var rules: Int
        /// The verified body in the store.
        public var fileURL: URL
    }

    /// The lists of the last fully synced set, in manifest order; empty on a fresh device.
    public func syncedLists() throws -> [SyncedList] {
        guard let state = try loadState() else { return [] }
        return state.manifest.lists.map {
            SyncedList(id: $0.id, sha256: $0.sha256, rules: $0.rules, fileURL: fileURL(sha256: $0.sha256))
        }
    }

    /// The hosts the last synced manifest unprotects (blocking off there); empty on a fresh device.
    public func unprotectedSites() throws -> [String] {
        try loadState()?.manifest.unprotectedSites ?? []
    }

    /// The last fully synced state, or nil on a fresh device.
    public func loadState() throws -> SyncState? {
        guard FileManager.default.fileExists(atPath: stateURL.path) else { return nil }
        do {
            let data = try Data(contentsOf: stateURL)
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(SyncState.self, from: data)
        } catch {
            throw SyncError.store(
                path: stateURL.path, reason: "cannot read state (\(error)); delete it to sync from scratch")
        }
    }

    func prepare() throws {
        do {
            try FileManager.default.createDirectory(at: listsDirectory, withIntermediateDirectories: true)
        } catch {
            throw SyncError.store(path: listsDirectory.path, reason: "cannot create directory (\(error))")
        }
    }

    /// Takes the store's advisory lock (`DIR/.lock`) for one sync, so two syncs of the same
    /// store (an overlapping cron run, two app processes) cannot delete each other's downloads.
    /// The lock goes away with the returned value's `release()` or with the process.
    func lock() throws -> StoreLock {
        let path = directory.appendingPathComponent(".lock").path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SyncError.store(path: path, reason: "cannot open lock file (errno \(errno))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw SyncError.store(
                path: directory.path, reason: "another sync of this store is running; try again when it has finished")
        }
        return StoreLock(fd: fd)
    }

    /// An held store lock; `release()` ends it.
    struct StoreLock {
        let fd: Int32
        func release() {
            _ = flock(fd, LOCK_UN)
            close(fd)
        }
    }

    /// Stores a verified body under its hash.
    func storeFile(_ data: Data, sha256: String) throws {
        try writeAtomically(data, to: fileURL(sha256: sha256))
    }

    /// Records a complete sync. Called only after every file the manifest names is stored.
    func saveState(_ state: SyncState) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(state)
        } catch {
            throw SyncError.store(path: stateURL.path, reason: "cannot encode state (\(error))")
        }
        try writeAtomically(data, to: stateURL)
    }

    /// Removes stored bodies (and leftover temporary files) that `keep` does not name.
    /// Returns how many list bodies were removed.
    func removeFiles(notIn keep: Set<String>) throws -> Int {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: listsDirectory.path)
        } catch {
            throw SyncError.store(path: listsDirectory.path, reason: "cannot list directory (\(error))")
        }
        var removed = 0
        for name in names {
            let isBody = name.hasSuffix(".json") && !name.hasPrefix(".")
            if isBody, keep.contains(String(name.dropLast(5))) { continue }
            let url = listsDirectory.appendingPathComponent(name)
            do {
                try FileManager.default.removeItem(at: url)
            } catch {
                throw SyncError.store(path: url.path, reason: "cannot remove (\(error))")
            }
            if isBody { removed += 1 }
        }
        return removed
    }

    /// Replaces the file durably (see `DurableFile`): readers and a restart see the old bytes or the
    /// new bytes, never a mix.
    private func writeAtomically(_ data: Data, to url: URL) throws {
        do {
            try DurableFile.write(data, to: url.path)
        } catch let error as DurableFileError {
            throw SyncError.store(path: error.path, reason: error.reason)
        }
    }
}
