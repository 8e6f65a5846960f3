import Dispatch
import Foundation
import ListFormat
import OriginConfig
import OriginRefresh
import OriginServe
import OriginStore

/// The composition root of `listserver serve`: configuration → HTTP server ← set source (a
/// refresher converting upstream lists, or a follower mirroring a primary), and the signal
/// handling that drains and exits. Serves the last published set at once; with nothing published,
/// the refresher converts the bundled snapshot first and the follower waits for the primary.
final class ServerApp: @unchecked Sendable {
    struct StartupError: Error, CustomStringConvertible {
        var description: String
    }

    let resolved: ResolvedConfiguration
    let log: Log
    let status = StatusBoard()
    private var server: HTTPServer?
    /// Set before the server starts, read by the admin trigger on event threads afterwards.
    private var source: (any SetSource)?
    /// Set before the server starts in converting mode; `POST /admin/accept-compile-time` accepts what it holds.
    private var compileAcceptance: CompileRegressionAcceptance?

    init(resolved: ResolvedConfiguration, log: Log) {
        self.resolved = resolved
        self.log = log
    }

    /// Starts everything and returns the bound port. The first set may still be converting
    /// (from the snapshot) when this returns; /healthz says 503 until it is installed.
    func start(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Int {
        let configuration = resolved.configuration
        let admin = AdminCredential.fromEnvironment(
            variable: configuration.http.adminTokenEnvironmentVariable, environment: environment)
        var changeSite: (@Sendable (UnprotectedSiteChange) -> Void)?
        if configuration.follow == nil {
            changeSite = { [weak self] (change: UnprotectedSiteChange) in self?.changeUnprotectedSite(change) }
        }
        let server = HTTPServer(
            configuration: configuration.http, listen: configuration.listen, status: status,
            log: log.child("http"), admin: admin, onAdminRefresh: { [weak self] in self?.source?.trigger() },
            onAcceptCompileTime: { [weak self] in self?.compileAcceptance?.acceptHeld() },
            onUnprotectedSite: changeSite,
            publicDirectory: resolved.publicDirectory)
        let source: any SetSource =
            if let follow = configuration.follow {
                try makeFollowSource(follow, server: server)
            } else {
                try makeRefreshSource(server: server)
            }
        self.server = server
        self.source = source
        let port = try server.start()
        let following = configuration.follow.map { ", following \($0.manifest)" } ?? ""
        log.info("listening on \(configuration.listen.address):\(port)\(following)")
        source.start()
        return port
    }

    /// An admin edit of the unprotected sites, handed to the refresher (a follower has none: its
    /// primary publishes them).
    private func changeUnprotectedSite(_ change: UnprotectedSiteChange) {
        (source as? RefreshSource)?.changeUnprotectedSite(change)
    }

    /// Stops the set source, drains in-flight responses and gives a run in progress the same grace
    /// to finish (SIGTERM/SIGINT); blocks until done. A run still going after that is left to the
    /// process exit: its writes are atomic, so the last good set stays whole.
    func stop() {
        let grace = resolved.configuration.http.shutdownGraceSeconds
        source?.stop()
        server?.shutdown(grace: grace)
        if let source, !source.waitUntilIdle(timeout: grace) {
            log.info(
                "a \(source.workName) is still running after \(grace) s; leaving it (the served set stays the last good one)"
            )
        }
    }
}

extension ServerApp {
    /// Converting mode: the stages with its gate and signer; the set on disk is served at once.
    private func makeRefreshSource(server: HTTPServer) throws -> RefreshSource {
        let configuration = resolved.configuration
        let gate = try GateSelection.make(setting: configuration.publish.verifyWithWebKit, log: log.child("verify"))
        let signer = try SigningSetup.signer(for: resolved, log: log.child("signing"))
        let stages = RefreshStages(
            resolved: resolved, status: status, log: log, gate: gate, signer: signer,
            publicSuffixes: try RefreshStages.publicSuffixes(for: resolved))
        compileAcceptance = stages.compileAcceptance
        let state: PersistentState
        do {
            state = try stages.store.load()
        } catch {
            throw StartupError(description: "\(error)")
        }
        stages.reporting.seed(upstreams: configuration.upstreams, state: state)
        stages.publisher.writer.removeStaleTempFiles()
        server.describeSets(configuration.publishedSets, defaultSet: configuration.defaultSet.name)
        let others: [OtherSet]
        do {
            others = try stages.loadOtherSets()
        } catch {
            throw StartupError(description: "\(error)")
        }
        for other in others {
            if let set = other.published { server.install(set.content, set: other.definition.name) }
        }
        var published: PublishedSet?
        do {
            let loaded = try stages.loadPublished(history: state.history)
            server.install(loaded.content)
            status.update { $0.signing = SigningStatus(signer: signer, content: loaded.content) }
            stages.reporting.recordLoaded(loaded)
            log.info(
                "serving the published set \(loaded.manifestSHA256?.prefix(12) ?? "") from \(resolved.publicDirectory)")
            published = loaded
        } catch {
            log.info("no usable published set (\(error)); converting from the last good copies or the bundled snapshot")
        }
        if published == nil { status.update { $0.signing = SigningStatus(signer: signer, content: nil) } }
        return RefreshSource(
            stages: stages, state: state, published: published, others: others,
            installOther: { [log] name, content in
                server.install(content, set: name)
                log.info("serving set \(name) manifest \(content.manifest?.sha256.prefix(12) ?? "none")")
            },
            install: { [log, status] content in
                server.install(content)
                status.update { $0.signing = SigningStatus(signer: signer, content: content) }
                log.info("serving manifest \(content.manifest?.sha256.prefix(12) ?? "none")")
            }
        )
    }

    /// Follower mode: no converter, no gate, no signing key; the primary's signed sets are mirrored
    /// (each set other than its default one by its own `FollowSource`, as the primary's `/sets/`
    /// lists them at each poll), and the last good sets are served from disk at once.
    private func makeFollowSource(_ follow: Configuration.Follow, server: HTTPServer) throws -> any SetSource {
        let configuration = resolved.configuration
        guard let url = URL(string: follow.manifest) else {
            throw StartupError(description: "follow.manifest: not a URL")
        }
        let keys: [MinisignPublicKey]
        let setFollower: SetFollower
        do {
            keys = try follow.trustedKeys.map { try MinisignPublicKey($0) }
            setFollower = try SetFollower(
                manifestURL: url, trustedKeys: keys, fetcher: CurlFetcher(configuration: configuration.fetch))
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
        let fetcher = CurlFetcher(configuration: configuration.fetch)
        let sets = FollowedSets(
            resolved: resolved, log: log.child("follow"), manifest: url, keys: keys, fetcher: fetcher,
            interval: follow.intervalSeconds, status: status,
            install: { name, set in server.install(set.content, set: name) },
            describe: { definitions, defaultSet in server.describeSets(definitions, defaultSet: defaultSet) })
        let index = sets.discover()
        let status = status
        let show: @Sendable (PublishedSet) -> Void = { set in
            server.install(set.content)
            reporting.recordLoaded(set)
            let signer = set.content.manifest.flatMap {
                set.content.signatures[PublishedSignature.name(forManifest: $0.sha256)]
            }
            .flatMap { PublishedSignature(manifestSHA256: set.manifestSHA256 ?? "", bytes: $0.identity).parsed?.keyID }
            let key = keys.first { $0.keyID == signer } ?? keys[0]
            status.update { $0.signing = SigningStatus(publicKey: key, content: set.content) }
        }
        var published: PublishedSet?
        do {
            let loaded = try installer.loader.load(history: state.history)
            show(loaded)
            log.info(
                "serving the followed set \(loaded.manifestSHA256?.prefix(12) ?? "") from \(resolved.publicDirectory)")
            published = loaded
        } catch {
            log.info("no usable published set (\(error)); waiting for the primary at \(follow.manifest)")
            status.update { $0.signing = SigningStatus(publicKey: keys[0], content: nil) }
        }
        let defaultSource = FollowSource(
            follower: setFollower,
            installer: installer, store: store, state: state, published: published, status: status,
            log: log.child("follow"),
            interval: follow.intervalSeconds, install: show)
        do {
            return try FollowSources(defaultSource: defaultSource, sets: sets, index: index)
        } catch {
            throw StartupError(description: "following the primary's sets: \(error)")
        }
    }
}
