import DurableFile
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The state directory: `state.json`, the last good copy of each upstream and rejected bodies kept
/// for inspection. The layout state and report are not here: they belong to the published set
/// (`layout.json` and `report.json` beside its manifest, see `PublishedSet`). Every write is atomic, so a
/// crash leaves either the old or the new file.
package struct StateStore: Sendable {
    static let stateFile = "state.json"
    /// Rejected bodies kept per upstream; older ones are removed.
    static let rejectedKept = 5

    package var directory: String

    var statePath: String { directory + "/" + Self.stateFile }
    func lastGoodPath(_ upstreamID: String) -> String { directory + "/upstreams/\(upstreamID).txt" }
    var rejectedDirectory: String { directory + "/rejected" }

    /// Reads `state.json`; empty state when the directory or file does not exist yet.
    package func load() throws -> PersistentState {
        guard FileManager.default.fileExists(atPath: statePath) else { return PersistentState() }
        guard let data = FileManager.default.contents(atPath: statePath) else {
            throw StateError.unreadable(path: statePath, reason: "permission denied")
        }
        let version: Int
        do {
            version = try JSONDecoder().decode(VersionProbe.self, from: data).version
        } catch {
            throw StateError.unreadable(path: statePath, reason: "not a state file: \(error)")
        }
        if version > PersistentState.currentVersion {
            throw StateError.newerVersion(path: statePath, found: version, supported: PersistentState.currentVersion)
        }
        if version < 1 { throw StateError.unreadable(path: statePath, reason: "version \(version) is not valid") }
        do {
            return try Self.decoder.decode(PersistentState.self, from: data)
        } catch {
            throw StateError.unreadable(path: statePath, reason: "\(error)")
        }
    }

    package func save(_ state: PersistentState) throws(StateError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        encoder.dateEncodingStrategy = .iso8601
        let bytes = Array((try? encoder.encode(state)) ?? Data())
        try write(bytes, to: statePath)
    }

    package func lastGoodCopy(_ upstreamID: String) -> [UInt8]? {
        FileManager.default.contents(atPath: lastGoodPath(upstreamID)).map { Array($0) }
    }

    package func saveLastGoodCopy(_ bytes: [UInt8], upstreamID: String) throws(StateError) {
        try write(bytes, to: lastGoodPath(upstreamID))
    }

    /// Keeps a rejected body for inspection and returns its path. Only the newest few are kept.
    @discardableResult
    package func keepRejected(_ bytes: [UInt8], upstreamID: String, at date: Date) throws(StateError) -> String {
        let stamp = Int(date.timeIntervalSince1970 * 1000)
        let path = rejectedDirectory + "/\(upstreamID)-\(stamp).txt"
        try write(bytes, to: path)
        let prefix = upstreamID + "-"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: rejectedDirectory)) ?? [])
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(".txt") && !$0.hasPrefix(".") }
            .sorted {
                (Int($0.dropFirst(prefix.count).dropLast(4)) ?? 0) < (Int($1.dropFirst(prefix.count).dropLast(4)) ?? 0)
            }
        for name in names.dropLast(Self.rejectedKept) {
            unlink(rejectedDirectory + "/" + name)
        }
        return path
    }

    func write(_ bytes: [UInt8], to path: String) throws(StateError) {
        let parent = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw StateError.write(path: parent, reason: "cannot create directory")
        }
        do {
            try DurableFile.write(bytes, to: path)
        } catch let error as DurableFileError {
            throw StateError.write(path: error.path, reason: error.reason)
        } catch {
            throw StateError.write(path: path, reason: "\(error)")
        }
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    private struct VersionProbe: Decodable { var version: Int }

    package init(directory: String) {
        self.directory = directory
    }
}
