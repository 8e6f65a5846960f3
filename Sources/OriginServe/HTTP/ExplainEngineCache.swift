import ContentBlockerEngine
import Foundation
import HTTPServerCore
import ListFormat
import OriginStore
import PublicSuffix

/// The decision engine of each installed set, built on first use off the event loop and kept for
/// that set's manifest hash only: one engine per set, so explaining one set does not drop
/// another's. A request that finds it still loading is told to retry: the event loop never waits
/// the seconds a load of ~130,000 rules takes. A request against a newer generation of a set drops
/// that set's old engine and starts loading the new one; nothing is loaded until a valid explain
/// asks, so a server nobody asks keeps its memory (each engine of the full lists is hundreds of
/// MB). Rules' ABP lines come from the set's `provenance.txt` in the public directory, trusted
/// only for the list files it was written for.
package final class ExplainEngineCache: @unchecked Sendable {
    package enum Lookup {
        case ready(ContentBlockerEngine, SetProvenance, manifestSHA256: String)
        case loading
        case failed(String)
        case noSet
    }

    private enum State {
        case loading
        case ready(ContentBlockerEngine, SetProvenance)
        case failed(String)
    }

    /// One set's engine, for one manifest.
    private struct Entry {
        var manifestSHA256: String
        var state: State
    }

    /// The key of the set served at the root in `entries`; other sets go by name.
    private static let defaultKey = ""

    private let lock = NSLock()
    /// By set (`defaultKey` for the default set), under `lock`.
    private var entries: [String: Entry] = [:]
    private var suffixes: PublicSuffixList?
    private let queue = DispatchQueue(label: "listserver.explain-load", qos: .utility)
    private let publicSuffixPath: String
    /// Where the installed set's `provenance.txt` is (the public directory); nil: no sources.
    private let provenanceDirectory: String?

    package init(provenanceDirectory: String?, publicSuffixPath: String = PublicSuffixFile.defaultPath) {
        self.provenanceDirectory = provenanceDirectory
        self.publicSuffixPath = publicSuffixPath
    }

    /// The set also served at the root: `set=` with its name explains the root's files.
    private var defaultSetName = "default"

    /// Names the set served at the root (from the server's set description).
    func setDefaultSet(_ name: String) {
        lock.lock()
        defaultSetName = name
        lock.unlock()
    }

    func isDefault(_ set: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return set == defaultSetName
    }

    /// The engine for the manifest of `set` (nil: the default set) in `site`, or why there is none
    /// yet; starts a load when needed.
    func lookup(_ site: StaticSite, set: String? = nil) -> Lookup {
        let scoped = set.flatMap { isDefault($0) ? nil : $0 }
        let prefix = scoped.map { "sets/\($0)/" } ?? ""
        guard let manifest = site.resource(named: prefix + SiteContent.manifestName)?.source else { return .noSet }
        let directory = provenanceDirectory.map { directory in scoped.map { directory + "/sets/" + $0 } ?? directory }
        let key = scoped ?? Self.defaultKey
        lock.lock()
        defer { lock.unlock() }
        if let entry = entries[key], entry.manifestSHA256 == manifest.sha256 {
            switch entry.state {
            case .ready(let engine, let provenance): return .ready(engine, provenance, manifestSHA256: manifest.sha256)
            case .loading: return .loading
            case .failed(let reason): return .failed(reason)
            }
        }
        // This set's previous engine is released here.
        entries[key] = Entry(manifestSHA256: manifest.sha256, state: .loading)
        queue.async { [self] in
            let result = Result { try build(site, manifest: manifest, prefix: prefix, directory: directory) }
            lock.lock()
            if entries[key]?.manifestSHA256 == manifest.sha256 {
                switch result {
                case .success(let (engine, provenance)): entries[key]?.state = .ready(engine, provenance)
                case .failure(let error): entries[key]?.state = .failed("\(error)")
                }
            }
            lock.unlock()
            // After the engine is ready: requests need not wait for the heap walk.
            MemoryTuning.releaseFreeMemory()
        }
        return .loading
    }

    /// New generations are being served (the default set's manifest hash, and each other set's by
    /// name): the engine of a set whose generation changed, or that is no longer served, goes now
    /// (hundreds of MB for the full lists), not at the next explain call; a load still running for
    /// it is discarded.
    package func installed(manifestSHA256: String?, others: [String: String] = [:]) {
        lock.lock()
        defer { lock.unlock() }
        entries = entries.filter { key, entry in
            entry.manifestSHA256 == (key == Self.defaultKey ? manifestSHA256 : others[key])
        }
    }

    /// Whether an engine is held now (loaded, for any set).
    var holdsEngine: Bool {
        lock.lock()
        defer { lock.unlock() }
        return entries.values.contains {
            if case .ready = $0.state { true } else { false }
        }
    }

    /// Whether the engine of `set` (nil: the default set) is held now.
    func holdsEngine(set: String?) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if case .ready = entries[set ?? Self.defaultKey]?.state { return true }
        return false
    }

    /// The installed set's lists, in manifest order, each checked against its hash (through
    /// `ManifestLists`, as `PublishedRuleSet.load` does for a directory), then the engine over them and their lines.
    private func build(
        _ site: StaticSite, manifest: StaticResource, prefix: String, directory provenanceDirectory: String?
    ) throws -> (ContentBlockerEngine, SetProvenance) {
        let lists: [(id: String, json: [UInt8])]
        let hashes: [String: String]
        do {
            let decoded = try ManifestLists.decode(Data(manifest.identity))
            lists = try ManifestLists.verifiedLists(decoded) { name in
                site.resource(named: prefix + name).map { ($0.source.identity, $0.source.sha256) }
            }
            hashes = Dictionary(decoded.lists.map { ($0.id, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        } catch {
            throw ExplainError(error, manifestPath: PublishedFileNames.manifest, directory: "")
        }
        let set = PublishedRuleSet(
            directory: provenanceDirectory ?? "", manifestSHA256: manifest.sha256, lists: lists, listSHA256: hashes)
        let provenance =
            provenanceDirectory == nil
            ? SetProvenance.none("none: this server was started without a public directory")
            : SetProvenance.load(for: set)
        return (try set.engine(registrableDomains: try publicSuffixes()), provenance)
    }

    private func publicSuffixes() throws -> PublicSuffixList {
        if let suffixes { return suffixes }
        let loaded: PublicSuffixList
        do { loaded = try PublicSuffixFile.load(path: publicSuffixPath) } catch {
            throw ExplainError.publicSuffixListMissing(error.path)
        }
        suffixes = loaded  // only the load queue touches it
        return loaded
    }
}
