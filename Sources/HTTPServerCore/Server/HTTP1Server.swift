import CNIOShim
import Foundation
import Glibc

/// An HTTP/1.1 server for static resources plus whatever an `HTTPResponder` adds. Construct it,
/// `start()` it, `install` each generation of resources, and `shutdown(grace:)` it on
/// SIGTERM/SIGINT (an application takes those signals itself, e.g. with `sigwait`, and then calls it).
///
/// Work is spread over a fixed set of `EventLoop`s (one per core, at most 4), each a serial
/// Dispatch queue with its own SO_REUSEPORT listening socket on the same port, so the kernel
/// spreads connections over the loops and Dispatch runs them on its thread pool.
public final class HTTP1Server: @unchecked Sendable {
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    public let configuration: HTTPServerConfiguration
    public let routes: HTTPRoutes
    private let responder: any HTTPResponder
    private let log: @Sendable (String) -> Void
    private let parts: ResponseParts
    private let sites = SiteSlot()
    private let limiter: ConnectionLimiter
    private let stateLock = NSLock()
    private var loops: [EventLoop] = []
    private var stopped = false

    /// - Parameters:
    ///   - routes: the labels the responder's answers are counted under.
    ///   - log: receives lifecycle lines and, when enabled, access lines.
    public init(
        configuration: HTTPServerConfiguration, routes: HTTPRoutes, responder: any HTTPResponder,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.configuration = configuration
        self.routes = routes
        self.responder = responder
        self.log = log
        parts = ResponseParts(serverName: configuration.serverName)
        limiter = ConnectionLimiter(maximum: configuration.maxConnections)
    }

    /// A server dropped without `shutdown` still releases its loops and sockets.
    deinit {
        if !stopped {
            for loop in loops { loop.stop() }
        }
    }

    /// Binds and starts serving; returns the bound port (useful when `port` is 0).
    public func start() throws -> Int {
        shim_ignore_sigpipe()
        let count = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4))
        var sockets: [Int32] = []
        var port = configuration.port
        do {
            for _ in 0..<count {
                let socket = try ListeningSocket.open(address: configuration.address, port: port, reusePort: true)
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
                created.append(try makeLoop(listenFD: fd, name: "\(configuration.serverName).http-loop-\(index)"))
            }
        } catch {
            for fd in sockets { close(fd) }
            throw StartError(description: "cannot start event loops: \(error)")
        }
        stateLock.lock()
        loops = created
        stateLock.unlock()
        for loop in created { loop.start() }
        log("serving HTTP on \(configuration.address):\(port) with \(count) event loops")
        return port
    }

    /// Each loop gets its own handler and counters, so the hot path touches no shared reference
    /// counts or locks besides the generation slot.
    private func makeLoop(listenFD: Int32, name: String) throws -> EventLoop {
        let handler = RequestHandler(
            parser: HTTPRequestParser(
                maxHeaderBytes: configuration.maxHeaderBytes, maxURIBytes: configuration.maxURIBytes),
            writer: ResponseWriter(parts: parts, routes: routes), responder: responder, sites: sites)
        let timeouts = HTTPConnection.Timeouts(
            header: MonotonicClock.nanoseconds(configuration.headerReadTimeoutSeconds),
            idle: MonotonicClock.nanoseconds(configuration.keepAliveIdleTimeoutSeconds))
        return try EventLoop(
            handler: handler, limiter: limiter, metrics: ServerMetrics(routes: routes), timeouts: timeouts,
            accessLog: AccessLog(enabled: configuration.accessLog, write: log), listenFD: listenFD, name: name)
    }

    /// Replaces the served generation atomically: requests parsed after this call see the new
    /// table, responses already queued keep their (reference-counted) old bytes.
    public func install(_ site: StaticSite) {
        sites.install(site)
    }

    /// The generation being served now.
    public var currentSite: StaticSite { sites.current }

    /// Stops accepting, lets in-flight responses finish for up to `grace` seconds, closes idle
    /// connections, then closes whatever is left. Blocks until the loops have exited.
    public func shutdown(grace: Double) {
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
        log("HTTP server stopped (\(unfinished.isEmpty ? "drained" : "grace period ran out"))")
    }

    /// Connections open right now, across all loops.
    public var openConnections: Int { limiter.current }

    /// Every loop's counters summed.
    public var counters: HTTPCounters {
        stateLock.lock()
        let current = loops
        stateLock.unlock()
        var totals = HTTPCounters(routeLabels: routes.labels)
        for loop in current { totals.add(loop.metrics.snapshot) }
        return totals
    }
}
