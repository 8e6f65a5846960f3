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
/// `<publicDir>/sets/<name>/`, with its state in `<stateDir>/sets/<name>/`, and served under
/// `/sets/<name>/`. The last index read is kept in the state directory, so a restart while the
/// primary is down still serves every set it mirrored.
struct FollowedSets {
    static let savedIndexName = "followed-sets.json"

    var resolved: ResolvedConfiguration
    var log: Log

    /// `…/manifest.json` → `…/sets/`.
    static func indexURL(forManifest manifest: URL) -> URL {
        manifest.deletingLastPathComponent().appendingPathComponent(ResolvedConfiguration.setsDirectory)
    }

    /// The primary's sets: fetched now, else the copy kept from the last start; nil when neither exists
    /// (a primary without sets, or one never reached): then only the default set is followed.
    func discover(manifest: URL, fetcher: CurlFetcher) -> SetIndex? {
        let saved = resolved.stateDirectory + "/" + Self.savedIndexName
        let url = Self.indexURL(forManifest: manifest).absoluteString
        do {
            guard case .body(let bytes, _) = try fetcher.fetch(url, validators: nil) else { return nil }
            let index = try JSONDecoder().decode(SetIndex.self, from: Data(bytes))
            try? FileManager.default.createDirectory(atPath: resolved.stateDirectory, withIntermediateDirectories: true)
            try? DurableFile.write(bytes, to: saved)
            return index
        } catch {
            log.warning(
                "the primary's set index \(url) could not be read (\(error)); using the one kept from the last start, if any"
            )
            return FileManager.default.contents(atPath: saved).flatMap {
                try? JSONDecoder().decode(SetIndex.self, from: $0)
            }
        }
    }

    /// The set definitions the follower's own `/sets/` lists.
    static func definitions(_ index: SetIndex) -> [ListSetDefinition] {
        index.sets.map { ListSetDefinition(name: $0.name, upstreams: $0.upstreams, target: $0.target) }
    }

    /// One follow source per set other than the default one, each serving what it installs through `install`.
    func sources(
        _ index: SetIndex, keys: [MinisignPublicKey], fetcher: CurlFetcher, interval: Double,
        install: @escaping @Sendable (String, PublishedSet) -> Void
    ) throws -> [FollowSource] {
        try index.sets.filter { $0.name != index.defaultSet }.map { entry in
            guard let url = URL(string: entry.manifest) else {
                throw ServerApp.StartupError(description: "the primary's /sets/: \(entry.name) has no manifest URL")
            }
            let definition = ListSetDefinition(name: entry.name, upstreams: entry.upstreams, target: entry.target)
            let store = StateStore(directory: resolved.stateDirectory(of: definition))
            let state = try store.load()
            let writer = SetWriter(directory: resolved.publicDirectory(of: definition))
            writer.removeStaleTempFiles()
            let installer = FollowInstaller(
                writer: writer, gracePeriod: resolved.configuration.publish.gracePeriodSeconds)
            let published = try? installer.loader.load(history: state.history)
            if let published { install(entry.name, published) }
            // Each set's follow status stays its own; /status shows the default set's.
            return FollowSource(
                follower: try SetFollower(manifestURL: url, trustedKeys: keys, fetcher: fetcher), installer: installer,
                store: store, state: state, published: published, status: StatusBoard(), log: log.child(entry.name),
                interval: interval, install: { install(entry.name, $0) })
        }
    }
}

/// The follow sources of every set, run as one `SetSource`: the admin trigger polls them all, and
/// stopping waits for each within one grace period.
final class FollowSources: SetSource {
    let sources: [FollowSource]
    let workName = "follow poll"

    init(sources: [FollowSource]) {
        self.sources = sources
    }

    func start() { for source in sources { source.start() } }
    func trigger() { for source in sources { source.trigger() } }
    func stop() { for source in sources { source.stop() } }

    func waitUntilIdle(timeout seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        return sources.reduce(true) { idle, source in
            source.waitUntilIdle(timeout: max(0, deadline.timeIntervalSinceNow)) && idle
        }
    }
}
