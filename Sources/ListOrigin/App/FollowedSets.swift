import DurableFile
import Foundation
import ListFormat
import ListSync
import OriginConfig
import OriginRefresh
import OriginServe
import OriginStore

/// A follower's view of the primary's other sets: the primary's `/sets/` (beside its manifest) names
/// them, and each set other than the default one is mirrored by its own `FollowSource` into
/// `<publicDir>/sets/<name>/`, with its state in `<stateDir>/sets/<name>/` and its status on its own
/// board, and served under `/sets/<name>/`. The last index read is kept in the state directory, so a
/// restart while the primary is down still serves every set it mirrored.
struct FollowedSets: Sendable {
    static let savedIndexName = "followed-sets.json"

    var resolved: ResolvedConfiguration
    var log: Log
    var manifest: URL
    var keys: [MinisignPublicKey]
    var fetcher: CurlFetcher
    var interval: Double
    /// The default set's board; each other set reports to its board in `status.sets`.
    var status: StatusBoard
    /// Hands a set's installed version to the HTTP layer, by name.
    var install: @Sendable (String, PublishedSet) -> Void
    /// Tells the HTTP layer which sets `/sets/` lists (the definitions, the default set's name).
    var describe: @Sendable ([ListSetDefinition], String) -> Void

    /// `…/manifest.json` → `…/sets/`.
    static func indexURL(forManifest manifest: URL) -> URL {
        manifest.deletingLastPathComponent().appendingPathComponent(ResolvedConfiguration.setsDirectory)
    }

    private var savedIndexPath: String { resolved.stateDirectory + "/" + Self.savedIndexName }

    /// The primary's `/sets/` as it answers now, kept for the next start; throws when it cannot be read.
    func fetchIndex() throws -> SetIndex {
        let url = Self.indexURL(forManifest: manifest).absoluteString
        guard case .body(let bytes, _) = try fetcher.fetch(url, validators: nil) else {
            throw FetchError.httpStatus(url: url, status: 304)
        }
        let index = try JSONDecoder().decode(SetIndex.self, from: Data(bytes))
        if (try? Data(contentsOf: URL(fileURLWithPath: savedIndexPath))) != Data(bytes) {
            try? FileManager.default.createDirectory(atPath: resolved.stateDirectory, withIntermediateDirectories: true)
            try? DurableFile.write(bytes, to: savedIndexPath)
        }
        return index
    }

    /// The primary's sets: fetched now, else the copy kept from the last start; nil when neither exists
    /// (a primary without sets, or one never reached): then only the default set is followed.
    func discover() -> SetIndex? {
        do {
            return try fetchIndex()
        } catch {
            log.warning(
                "the primary's set index \(Self.indexURL(forManifest: manifest)) could not be read (\(error)); using the one kept from the last start, if any"
            )
            return FileManager.default.contents(atPath: savedIndexPath).flatMap {
                try? JSONDecoder().decode(SetIndex.self, from: $0)
            }
        }
    }

    /// The set definitions the follower's own `/sets/` lists.
    static func definitions(_ index: SetIndex) -> [ListSetDefinition] {
        index.sets.map { ListSetDefinition(name: $0.name, upstreams: $0.upstreams, target: $0.target) }
    }

    /// The follow source of one set other than the default one; what it holds on disk is served at once.
    func source(_ entry: SetIndex.Entry) throws -> FollowSource {
        guard let url = URL(string: entry.manifest) else {
            throw ServerApp.StartupError(description: "the primary's /sets/: \(entry.name) has no manifest URL")
        }
        let definition = ListSetDefinition(name: entry.name, upstreams: entry.upstreams, target: entry.target)
        let store = StateStore(directory: resolved.stateDirectory(of: definition))
        let state = try store.load()
        let writer = SetWriter(directory: resolved.publicDirectory(of: definition))
        writer.removeStaleTempFiles()
        let installer = FollowInstaller(writer: writer, gracePeriod: resolved.configuration.publish.gracePeriodSeconds)
        let published = try? installer.loader.load(history: state.history)
        let board = status.sets.board(for: entry.name)
        let reporting = RefreshReporting(status: board, log: log.child(entry.name))
        let install: @Sendable (PublishedSet) -> Void = { [install = self.install] set in
            install(entry.name, set)
            reporting.recordLoaded(set)
        }
        if let published { install(published) }
        return FollowSource(
            follower: try SetFollower(manifestURL: url, trustedKeys: keys, fetcher: fetcher), installer: installer,
            store: store, state: state, published: published, status: board, log: log.child(entry.name),
            interval: interval, install: install)
    }
}

/// The follow sources of every set, run as one `SetSource`: the admin trigger polls them all, and
/// stopping waits for each within one grace period. The primary's `/sets/` is read again every
/// interval: a set it adds is followed from then on, and a set it no longer lists is neither polled
/// nor served (its files stay on disk), so the follower answers as its primary does.
final class FollowSources: SetSource, @unchecked Sendable {
    let workName = "follow poll"
    private let defaultSource: FollowSource
    private let sets: FollowedSets
    /// Set once in `init`, before anything can reach it.
    private var indexJob: SerialJob!
    private let lock = NSLock()
    // Under `lock`.
    private var others: [String: FollowSource] = [:]
    private var running = false
    /// The index the follower's `/sets/` describes now.
    private var described: SetIndex?
    // Touched only by the index job.
    private var lastIndexError: String?

    /// Follows the default set and, when the primary's index is known, each of its other sets.
    init(defaultSource: FollowSource, sets: FollowedSets, index: SetIndex?) throws {
        self.defaultSource = defaultSource
        self.sets = sets
        if let index {
            sets.describe(FollowedSets.definitions(index), index.defaultSet)
            described = index
            for entry in index.sets where entry.name != index.defaultSet { others[entry.name] = try sets.source(entry) }
        }
        indexJob = SerialJob(label: "listserver.follow-sets") { [weak self] isStopping in
            guard let self else { return nil }
            self.followIndex(isStopping: isStopping)
            return self.sets.interval
        }
    }

    /// The sets followed now other than the default one, by name.
    var followedNames: [String] { lock.withLock { others.keys.sorted() } }

    func start() {
        let started = lock.withLock {
            running = true
            return Array(others.values)
        }
        defaultSource.start()
        for source in started { source.start() }
        indexJob.start { self.sets.interval }
    }

    func trigger() {
        defaultSource.trigger()
        for source in lock.withLock({ Array(others.values) }) { source.trigger() }
        indexJob.trigger()
    }

    func stop() {
        let stopping = lock.withLock {
            running = false
            return Array(others.values)
        }
        indexJob.stop()
        defaultSource.stop()
        for source in stopping { source.stop() }
    }

    func waitUntilIdle(timeout seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        let sources = [defaultSource] + lock.withLock { Array(others.values) }
        let idle = sources.reduce(true) { idle, source in
            source.waitUntilIdle(timeout: max(0, deadline.timeIntervalSinceNow)) && idle
        }
        return indexJob.waitUntilIdle(timeout: max(0, deadline.timeIntervalSinceNow)) && idle
    }

    /// Reads the primary's index and follows what it lists now. An index that cannot be read
    /// changes nothing: the sets followed stay followed.
    private func followIndex(isStopping: @escaping @Sendable () -> Bool) {
        let index: SetIndex
        do { index = try sets.fetchIndex() } catch {
            // Said once per distinct problem: a primary without `/sets/` answers 404 at every poll.
            if lastIndexError != "\(error)" {
                sets.log.info("the primary's set index could not be read (\(error)); following the same sets")
            }
            lastIndexError = "\(error)"
            return
        }
        lastIndexError = nil
        let listed = index.sets.filter { $0.name != index.defaultSet }
        let current = lock.withLock { others }
        var added: [String: FollowSource] = [:]
        for entry in listed where current[entry.name] == nil && !isStopping() {
            do {
                added[entry.name] = try sets.source(entry)
                sets.log.info("the primary lists a new set \(entry.name); following it")
            } catch {
                sets.log.error("cannot follow the primary's new set \(entry.name): \(error)")
            }
        }
        let names = Set(listed.map(\.name))
        let dropped = current.filter { !names.contains($0.key) }
        let (changed, start): (Bool, [FollowSource]) = lock.withLock {
            for name in dropped.keys { others[name] = nil }
            others.merge(added) { _, new in new }
            let changed = described != index
            described = index
            return (changed, running ? Array(added.values) : [])
        }
        for (name, source) in dropped {
            source.stop()
            sets.log.info("the primary no longer lists set \(name); no longer following or serving it")
        }
        if changed { sets.describe(FollowedSets.definitions(index), index.defaultSet) }
        for source in start { source.start() }
    }
}
