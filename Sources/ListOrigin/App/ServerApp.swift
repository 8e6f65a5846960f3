import Dispatch
import Foundation
import ListFormat
import OriginConfig
import OriginRefresh
import OriginServe
import OriginStore

/// The composition root of `listserver serve`: configuration → state → publisher → HTTP server →
/// refresher, and the signal handling that drains and exits. Serves the last published set at
/// once; with nothing published, converts the bundled snapshot first.
final class ServerApp: @unchecked Sendable {
    struct StartupError: Error, CustomStringConvertible {
        var description: String
    }

    let resolved: ResolvedConfiguration
    let log: Log
    let status = StatusBoard()
    private var server: HTTPServer?
    private var scheduler: RefreshScheduler?
    private var follower: FollowScheduler?
    /// Followers of the primary's sets other than its default one.
    private var otherFollowers: [FollowScheduler] = []

    init(resolved: ResolvedConfiguration, log: Log) {
        self.resolved = resolved
        self.log = log
    }

    /// Starts everything and returns the bound port. The first set may still be converting
    /// (from the snapshot) when this returns; /healthz says 503 until it is installed.
    func start(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Int {
        let configuration = resolved.configuration
        if let follow = configuration.follow { return try startFollowing(follow, environment: environment) }
        let gate = try GateSelection.make(setting: configuration.publish.verifyWithWebKit, log: log.child("verify"))
        let signer = try SigningSetup.signer(for: resolved, log: log.child("signing"))
        let pipeline = Pipeline(resolved: resolved, status: status, log: log, gate: gate, signer: signer)
        let state: PersistentState
        do {
            state = try pipeline.store.load()
        } catch {
            throw StartupError(description: "\(error)")
        }
        pipeline.reporting.seed(upstreams: configuration.upstreams, state: state)
        pipeline.publisher.writer.removeStaleTempFiles()

        // The scheduler's install target is the server, created next; the admin endpoint's target
        // is the scheduler. A small box breaks the cycle.
        let schedulerBox = SchedulerBox()
        let admin = AdminEndpoint.fromEnvironment(variable: configuration.http.adminTokenEnvironmentVariable, environment: environment) {
            schedulerBox.scheduler?.trigger()
        }
        let server = HTTPServer(configuration: configuration.http, listen: configuration.listen, status: status,
                                log: log.child("http"), admin: admin, publicDirectory: resolved.publicDirectory)
        server.describeSets(configuration.publishedSets, defaultSet: configuration.defaultSet.name)
        let others: [OtherSet]
        do {
            others = try pipeline.loadOtherSets()
        } catch {
            throw StartupError(description: "\(error)")
        }
        for other in others {
            if let set = other.published { server.install(set.content, set: other.definition.name) }
        }
        var published: PublishedSet?
        do {
            let loaded = try pipeline.loadPublished(history: state.history)
            server.install(loaded.content)
            status.update { $0.signing = SigningStatus(signer: signer, content: loaded.content) }
            pipeline.reporting.recordLoaded(loaded)
            log.info("serving the published set \(loaded.manifestSHA256?.prefix(12) ?? "") from \(resolved.publicDirectory)")
            published = loaded
        } catch {
            log.info("no usable published set (\(error)); converting from the last good copies or the bundled snapshot")
        }
        if published == nil { status.update { $0.signing = SigningStatus(signer: signer, content: nil) } }
        let scheduler = RefreshScheduler(pipeline: pipeline, state: state, published: published, others: others, installOther: { [log] name, content in
            server.install(content, set: name)
            log.info("serving set \(name) manifest \(content.manifest?.sha256.prefix(12) ?? "none")")
        }) { [log, status] content in
            server.install(content)
            status.update { $0.signing = SigningStatus(signer: signer, content: content) }
            log.info("serving manifest \(content.manifest?.sha256.prefix(12) ?? "none")")
        }
        schedulerBox.scheduler = scheduler
        self.server = server
        self.scheduler = scheduler

        let port = try server.start()
        log.info("listening on \(configuration.listen.address):\(port)")
        if published != nil {
            scheduler.start()
        } else {
            scheduler.startFromSnapshot()
        }
        return port
    }

    /// Stops refreshing, drains in-flight responses and gives a refresh in progress the same grace
    /// to finish (SIGTERM/SIGINT); blocks until done. A refresh still running after that is left to
    /// the process exit: its writes are atomic, so the last good set stays whole.
    func stop() {
        let grace = resolved.configuration.http.shutdownGraceSeconds
        scheduler?.stop()
        follower?.stop()
        otherFollowers.forEach { $0.stop() }
        server?.shutdown(grace: grace)
        for follower in [follower].compactMap({ $0 }) + otherFollowers where !follower.waitUntilIdle(timeout: grace) {
            log.info("a follow poll is still running after \(grace) s; leaving it (the served set stays the last good one)")
        }
        if let scheduler, !scheduler.waitUntilIdle(timeout: grace) {
            log.info("a refresh is still running after \(grace) s; leaving it (the published set stays the last good one)")
        }
    }
}

extension ServerApp {
    /// Follower mode: no converter, no gate, no signing key; the primary's signed set is mirrored
    /// through `FollowScheduler`, and the last good set is served from disk at once.
    private func startFollowing(_ follow: Configuration.Follow, environment: [String: String]) throws -> Int {
        let configuration = resolved.configuration
        guard let url = URL(string: follow.manifest) else { throw StartupError(description: "follow.manifest: not a URL") }
        let keys: [MinisignPublicKey]
        let setFollower: SetFollower
        do {
            keys = try follow.trustedKeys.map { try MinisignPublicKey($0) }
            setFollower = try SetFollower(manifestURL: url, trustedKeys: keys, fetcher: CurlFetcher(configuration: configuration.fetch))
        } catch {
            throw StartupError(description: "follow.trustedKeys: \(error)")
        }
        let store = StateStore(directory: resolved.stateDirectory)
        let state: PersistentState
        do { state = try store.load() } catch { throw StartupError(description: "\(error)") }
        let writer = SetWriter(directory: resolved.publicDirectory)
        writer.removeStaleTempFiles()
        let installer = FollowInstaller(writer: writer, gracePeriod: configuration.publish.gracePeriodSeconds)
        let reporting = RefreshReporting(status: status, log: log.child("follow"))
        let followerBox = FollowerBox()
        let admin = AdminEndpoint.fromEnvironment(variable: configuration.http.adminTokenEnvironmentVariable, environment: environment) {
            followerBox.scheduler?.trigger()
            followerBox.others.forEach { $0.trigger() }
        }
        let server = HTTPServer(configuration: configuration.http, listen: configuration.listen, status: status,
                                log: log.child("http"), admin: admin, publicDirectory: resolved.publicDirectory)
        let sets = FollowedSets(resolved: resolved, log: log.child("follow"))
        let fetcher = CurlFetcher(configuration: configuration.fetch)
        if let index = sets.discover(manifest: url, fetcher: fetcher) {
            server.describeSets(FollowedSets.definitions(index), defaultSet: index.defaultSet)
            do {
                followerBox.others = try sets.schedulers(index, keys: keys, fetcher: fetcher, interval: follow.intervalSeconds) { name, set in
                    server.install(set.content, set: name)
                }
            } catch {
                throw StartupError(description: "following the primary's sets: \(error)")
            }
        }
        let status = status
        let show: @Sendable (PublishedSet) -> Void = { set in
            server.install(set.content)
            reporting.recordLoaded(set)
            let signer = set.content.manifest.flatMap { set.content.signatures[PublishedSignature.name(forManifest: $0.sha256)] }
                .flatMap { PublishedSignature(manifestSHA256: set.manifestSHA256 ?? "", bytes: $0.identity).parsed?.keyID }
            let key = keys.first { $0.keyID == signer } ?? keys[0]
            status.update { $0.signing = SigningStatus(publicKey: key, content: set.content) }
        }
        var published: PublishedSet?
        do {
            let loaded = try installer.loader.load(history: state.history)
            show(loaded)
            log.info("serving the followed set \(loaded.manifestSHA256?.prefix(12) ?? "") from \(resolved.publicDirectory)")
            published = loaded
        } catch {
            log.info("no usable published set (\(error)); waiting for the primary at \(follow.manifest)")
            status.update { $0.signing = SigningStatus(publicKey: keys[0], content: nil) }
        }
        let scheduler = FollowScheduler(
            follower: setFollower,
            installer: installer, store: store, state: state, published: published, status: status, log: log.child("follow"),
            interval: follow.intervalSeconds, install: show)
        followerBox.scheduler = scheduler
        self.server = server
        self.follower = scheduler
        otherFollowers = followerBox.others
        let port = try server.start()
        log.info("listening on \(configuration.listen.address):\(port), following \(follow.manifest)")
        scheduler.start()
        otherFollowers.forEach { $0.start() }
        return port
    }
}

private final class FollowerBox: @unchecked Sendable {
    var scheduler: FollowScheduler?
    var others: [FollowScheduler] = []
}

private final class SchedulerBox: @unchecked Sendable {
    var scheduler: RefreshScheduler?
}
