import CNIOShim
import Foundation
import Glibc

/// The origin's HTTP/1.1 server. Construct it, `start()` it, `install` each published generation,
/// and `shutdown(grace:)` it on SIGTERM/SIGINT (see `TerminationSignals`).
///
/// Work is spread over a fixed set of `EventLoop`s (one per core, at most 4), each a serial
/// Dispatch queue with its own SO_REUSEPORT listening socket on the same port, so the kernel
/// spreads connections over the loops and Dispatch runs them on its thread pool.
final class HTTPServer: @unchecked Sendable {
    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    static let version = "1.0.0"

    private let listen: Configuration.Listen
    private let context: ServerContext
    private let limiter: ConnectionLimiter
    private let startedAt = Date()
    private let stateLock = NSLock()
    private var loops: [EventLoop] = []
    private var stopped = false

    init(configuration: Configuration.HTTP, listen: Configuration.Listen, status: StatusBoard, log: Log, admin: AdminEndpoint?) {
        self.listen = listen
        context = ServerContext(configuration: configuration, status: status, log: log, admin: admin)
        limiter = ConnectionLimiter(maximum: configuration.maxConnections)
        context.activity = { [weak self, startedAt] in
            self?.activity() ?? ServerActivity(version: Self.version, startedAt: startedAt, now: Date(), openConnections: 0,
                                               metrics: .zero, fileDates: [:], manifestInstalled: false)
        }
    }

    /// A server dropped without `shutdown` still releases its loops and sockets.
    deinit {
        if !stopped {
            for loop in loops { loop.stop() }
        }
    }

    /// Binds and starts serving; returns the bound port (useful when `listen.port` is 0).
    func start() throws -> Int {
        shim_ignore_sigpipe()
        let count = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4))
        var sockets: [Int32] = []
        var port = listen.port
        do {
            for _ in 0..<count {
                let socket = try ListeningSocket.open(address: listen.address, port: port, reusePort: true)
                sockets.append(socket.fd)
                port = socket.port
            }
        } catch {
            for fd in sockets { close(fd) }
            throw StartError(description: "cannot listen: \(error)")
        }
        var created: [EventLoop] = []
        do {
            for (index, fd) in sockets.enumerated() {
                created.append(try EventLoop(context: context, limiter: limiter, listenFD: fd, name: "listserver.http-loop-\(index)"))
            }
        } catch {
            for fd in sockets { close(fd) }
            throw StartError(description: "cannot start event loops: \(error)")
        }
        stateLock.lock()
        loops = created
        stateLock.unlock()
        for loop in created { loop.start() }
        context.log.info("serving HTTP on \(listen.address):\(port) with \(count) event loops")
        return port
    }

    /// Replaces the served generation atomically: requests parsed after this call see the new
    /// table, responses already queued keep their (reference-counted) old bytes.
    func install(_ content: SiteContent) {
        context.install(PreparedSite(content, configuration: context.configuration))
    }

    /// Stops accepting, lets in-flight responses finish for up to `grace` seconds, closes idle
    /// connections, then closes whatever is left. Blocks until the loops have exited.
    func shutdown(grace: Double) {
        stateLock.lock()
        let running = stopped ? [] : loops
        stopped = true
        stateLock.unlock()
        guard !running.isEmpty else { return }
        for loop in running { loop.beginDraining() }
        let deadline = DispatchTime.now() + grace
        var unfinished: [EventLoop] = []
        for loop in running where !loop.waitUntilFinished(deadline: deadline) {
            unfinished.append(loop)
        }
        for loop in unfinished {
            loop.stop()
            _ = loop.waitUntilFinished(deadline: .now() + 5)
        }
        context.log.info("HTTP server stopped (\(unfinished.isEmpty ? "drained" : "grace period ran out"))")
    }

    /// Connections open right now, across all loops.
    var openConnections: Int { limiter.current }

    private func activity() -> ServerActivity {
        stateLock.lock()
        let current = loops
        stateLock.unlock()
        var totals = ServerMetrics.Snapshot.zero
        for loop in current { totals.add(loop.metrics.snapshot) }
        let site = context.currentSite
        return ServerActivity(
            version: Self.version, startedAt: startedAt, now: Date(), openConnections: limiter.current, metrics: totals,
            fileDates: site.content.files.mapValues(\.lastModified), manifestInstalled: site.manifest != nil,
            servedManifestSHA256: site.content.manifest?.sha256, servedManifestPublishedAt: site.content.manifest?.lastModified)
    }
}
