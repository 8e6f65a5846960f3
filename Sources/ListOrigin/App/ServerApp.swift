import Dispatch
import Foundation

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

    init(resolved: ResolvedConfiguration, log: Log) {
        self.resolved = resolved
        self.log = log
    }

    /// Starts everything and returns the bound port. The first set may still be converting
    /// (from the snapshot) when this returns; /healthz says 503 until it is installed.
    func start(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Int {
        let configuration = resolved.configuration
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
        let scheduler = RefreshScheduler(pipeline: pipeline, state: state, published: published) { [log, status] content in
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
        server?.shutdown(grace: grace)
        if let scheduler, !scheduler.waitUntilIdle(timeout: grace) {
            log.info("a refresh is still running after \(grace) s; leaving it (the published set stays the last good one)")
        }
    }
}

private final class SchedulerBox: @unchecked Sendable {
    var scheduler: RefreshScheduler?
}
