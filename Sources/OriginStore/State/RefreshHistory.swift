import DurableFile
import Foundation

/// One refresh as the status page plots it: what happened, in plain words, and what it cost a
/// device. Written once per reported refresh by `RefreshReporting`.
package struct RefreshRecord: Codable, Sendable, Equatable {
    /// One list of the set after a publish.
    package struct ListFigures: Codable, Sendable, Equatable {
        package var id: String
        /// The content-hashed file name: identifies the version.
        package var file: String
        package var rules: Int
        package var bytes: Int
        package var gzipBytes: Int
        /// WebKit compile time from the publish gate, when it compiled this version in this refresh.
        package var compileSeconds: Double?
        /// True when this version is new to devices (they fetch and compile it).
        package var changed: Bool
    }

    /// What the update costs one device that held the previous set.
    package struct DeviceCost: Codable, Sendable, Equatable {
        /// Bytes fetched using a dcz patch where one exists from the previous version, else the gzip file.
        package var bytesWithPatches: Int
        /// Bytes fetched if every changed list is downloaded whole (gzip).
        package var bytesWhole: Int
        package var listsToRecompile: Int
    }

    package var at: Date
    /// `RefreshResult.label`: `published`, `unchanged` or `failed`.
    package var result: String
    /// The outcome in plain words, e.g. "published 2 changed lists of 9" or the error.
    package var summary: String
    /// Lists devices must fetch and compile (ids).
    package var listsChanged: [String] = []
    /// Every list of the set after a publish; empty when nothing was published.
    package var lists: [ListFigures] = []
    package var deviceCost = DeviceCost(bytesWithPatches: 0, bytesWhole: 0, listsToRecompile: 0)
    /// Rules per list family (`network-hosts`, `cosmetic-generic`, …) after a publish.
    package var rulesByFamily: [String: Int] = [:]

    /// The family of a list id: `network-hosts-03` and `network-hosts-recent` are `network-hosts`.
    package static func family(ofList id: String) -> String {
        guard let dash = id.lastIndex(of: "-") else { return id }
        let last = id[id.index(after: dash)...]
        guard last == "recent" || (!last.isEmpty && last.allSatisfy(\.isNumber)) else { return id }
        return String(id[..<dash])
    }
}

/// `refresh-history.json` in the state directory: the last `limit` refreshes, oldest first.
/// Rewritten whole with `DurableFile` (about 400 small records), so a crash leaves the old or the
/// new file. Versioned like `state.json`; a problem never stops the server.
package struct RefreshHistoryStore: Sendable {
    package static let fileName = "refresh-history.json"
    /// The version this build writes and the highest it reads.
    static let currentVersion = 1
    /// About a year of daily refreshes, plus retries.
    static let defaultLimit = 400

    package enum LoadProblem: Error, CustomStringConvertible, Equatable {
        /// Written by a newer server: not read, and never overwritten by this one.
        case newerVersion(path: String, found: Int, supported: Int)
        /// Not a history file; it was moved aside (or could not be) and the history starts empty.
        case unreadable(path: String, reason: String, movedTo: String?)

        package var description: String {
            switch self {
            case .newerVersion(let path, let found, let supported):
                return
                    "\(path) has history version \(found), but this server reads versions up to \(supported); the refresh history is neither shown nor written until a newer listserver runs"
            case .unreadable(let path, let reason, let movedTo):
                let aside = movedTo.map { "moved aside to \($0)" } ?? "could not be moved aside"
                return "\(path) is not a refresh history (\(reason)); it was \(aside) and the history starts empty"
            }
        }
    }

    package var directory: String
    package var limit = RefreshHistoryStore.defaultLimit

    package var path: String { directory + "/" + Self.fileName }

    private struct File: Codable {
        var version: Int
        var records: [RefreshRecord]
    }

    private struct VersionProbe: Decodable { var version: Int }

    /// The kept records, oldest first; empty when there is no file yet.
    package func load() -> Result<[RefreshRecord], LoadProblem> {
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) {
                return .failure(.unreadable(path: path, reason: "permission denied", movedTo: nil))
            }
            return .success([])
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let version = try? decoder.decode(VersionProbe.self, from: data).version else {
            return .failure(moveAside(reason: "no version field or not JSON"))
        }
        if version > Self.currentVersion {
            return .failure(.newerVersion(path: path, found: version, supported: Self.currentVersion))
        }
        guard version >= 1 else { return .failure(moveAside(reason: "version \(version) is not valid")) }
        guard let file = try? decoder.decode(File.self, from: data) else {
            return .failure(moveAside(reason: "its records do not decode"))
        }
        return .success(Array(file.records.suffix(limit)))
    }

    /// Replaces the file with the newest `limit` of `records`.
    package func save(_ records: [RefreshRecord]) throws(StateError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let file = File(version: Self.currentVersion, records: Array(records.suffix(limit)))
        let bytes = Array((try? encoder.encode(file)) ?? Data())
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try DurableFile.write(bytes, to: path)
        } catch {
            throw StateError.write(path: path, reason: "\(error)")
        }
    }

    private func moveAside(reason: String) -> LoadProblem {
        let aside = path + ".corrupt-\(Int(Date().timeIntervalSince1970))"
        let moved = (try? FileManager.default.moveItem(atPath: path, toPath: aside)) != nil
        return .unreadable(path: path, reason: reason, movedTo: moved ? aside : nil)
    }

    package init(directory: String, limit: Int = RefreshHistoryStore.defaultLimit) {
        self.directory = directory
        self.limit = limit
    }
}

/// The refresh history in memory, shared by the refresher (appends) and the status page (reads).
/// Loaded once; a history this server must not write (a newer version) stays read-only and empty.
package final class RefreshHistory: @unchecked Sendable {
    private let store: RefreshHistoryStore
    private let lock = NSLock()
    private var records: [RefreshRecord]
    private let writable: Bool

    /// Loads the store; a problem is logged and the history starts empty (the server never fails for it).
    package init(store: RefreshHistoryStore, log: Log) {
        self.store = store
        switch store.load() {
        case .success(let loaded):
            records = loaded
            writable = true
        case .failure(let problem):
            records = []
            if case .newerVersion = problem {
                writable = false
                log.error("refresh history: \(problem)")
            } else {
                writable = true
                log.warning("refresh history: \(problem)")
            }
        }
    }

    package var current: [RefreshRecord] {
        lock.lock()
        defer { lock.unlock() }
        return records
    }

    /// Appends, drops the oldest beyond the limit and saves. A failed save keeps the record in memory.
    package func append(_ record: RefreshRecord) throws(StateError) {
        lock.lock()
        defer { lock.unlock() }
        guard writable else { return }
        records.append(record)
        if records.count > store.limit { records.removeFirst(records.count - store.limit) }
        try store.save(records)
    }
}
