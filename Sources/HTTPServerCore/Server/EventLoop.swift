import Foundation
import Glibc

/// One event loop: a serial `DispatchQueue` that owns an epoll set holding this loop's own
/// SO_REUSEPORT listening socket and the connections accepted from it.
///
/// Dispatch drives it: a `DispatchSource` read source watches the epoll descriptor (which is
/// readable whenever any registered socket is ready), and its handler, running on the loop's
/// queue, takes the ready sockets in batches with `epoll_wait` and serves them (see
/// `serveReadySockets` for how long it stays). The header/idle/linger sweep is a
/// `DispatchSourceTimer` on the same queue, and cross-thread requests (drain, stop) are
/// `queue.async` blocks, so every piece of a connection's state is touched only on its loop's
/// queue and needs no lock.
///
/// Why one read source on an epoll set rather than a read source per connection: a request here
/// is a few microseconds of work, comparable to the cost of one Dispatch event delivery (the
/// manager thread's wake-up, re-arming the source, waking a worker). Measured at 64 connections,
/// one delivery per small batch already cost ~40% more CPU per request than a plain epoll thread;
/// a source per socket would pay a delivery per request. Wrapping the connections in an epoll set
/// pays it once per burst of work instead, and 10,000 mostly idle connections cost only their
/// small state objects, not 10,000 sources.
///
/// The rest of the loop lives beside this file: accepting and refusing (`+Accepting`), socket
/// reads and writes (`+SocketIO`) and the deadline sweep (`+Timeouts`); the protocol state of
/// each connection is `HTTPConnection`.
final class EventLoop: @unchecked Sendable {
    static let listenToken = UInt64.max - 1
    static let scratchSize = 65_536
    /// Ready sockets taken per `epoll_wait`.
    private static let batchSize: Int32 = 256
    /// While a handler keeps finding ready sockets, it waits this long for more before handing
    /// the queue back to Dispatch, and stops after `busyBudget` in any case.
    private static let busyWaitMilliseconds: Int32 = 1
    private static let busyBudget: UInt64 = 10_000_000
    static let sweepInterval = DispatchTimeInterval.milliseconds(250)

    /// A socket and the protocol state of the connection on it.
    final class Client {
        let fd: Int32
        let peer: String
        let connection: HTTPConnection
        /// The epoll interest currently registered.
        var registeredEvents: UInt32 = 0

        init(fd: Int32, peer: String, connection: HTTPConnection) {
            self.fd = fd
            self.peer = peer
            self.connection = connection
        }
    }

    let metrics: ServerMetrics
    let handler: RequestHandler
    let limiter: ConnectionLimiter
    let accessLog: AccessLog
    let timeouts: HTTPConnection.Timeouts
    /// Every connection of this loop is read, written and closed only on this queue.
    private let queue: DispatchQueue
    /// This loop's listening socket; -1 once closed (draining).
    var listenFD: Int32
    let epoll: Epoll
    private let finished = DispatchSemaphore(value: 0)
    private var readySource: DispatchSourceRead?
    private var sweepTimer: DispatchSourceTimer?

    var clients: [Int32: Client] = [:]
    var draining = false
    /// Set once the loop has closed everything and cancelled its sources.
    private var ended = false
    private var dateSecond = -1
    private var dated: DatedParts
    var now: UInt64 = 0
    let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: EventLoop.scratchSize)
    private let readyEvents = UnsafeMutablePointer<UInt32>.allocate(capacity: Int(EventLoop.batchSize))
    private let readyTokens = UnsafeMutablePointer<UInt64>.allocate(capacity: Int(EventLoop.batchSize))

    init(
        handler: RequestHandler, limiter: ConnectionLimiter, metrics: ServerMetrics, timeouts: HTTPConnection.Timeouts,
        accessLog: AccessLog, listenFD: Int32, name: String
    ) throws {
        self.handler = handler
        self.limiter = limiter
        self.metrics = metrics
        self.timeouts = timeouts
        self.accessLog = accessLog
        self.listenFD = listenFD
        dated = DatedParts(second: time(nil), parts: handler.writer.parts)
        queue = DispatchQueue(label: name)
        epoll = try Epoll()
        guard epoll.add(listenFD, events: Epoll.acceptReady, token: Self.listenToken) else {
            close(epoll.fd)
            throw Epoll.Failure(description: "epoll_ctl failed: \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        // A loop that was started closes its epoll descriptor in the read source's cancel handler.
        if readySource == nil { close(epoll.fd) }
        scratch.deallocate()
        readyEvents.deallocate()
        readyTokens.deallocate()
    }

    /// Arms the read source and the sweep timer; from here on the loop runs on its queue. The
    /// sources' handlers keep the loop alive until `end()` cancels them.
    func start() {
        queue.sync {
            let source = DispatchSource.makeReadSource(fileDescriptor: epoll.fd, queue: queue)
            source.setEventHandler { [self] in serveReadySockets() }
            source.setCancelHandler { [self] in
                close(epoll.fd)
                finished.signal()
            }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(
                deadline: .now() + Self.sweepInterval, repeating: Self.sweepInterval, leeway: .milliseconds(50))
            timer.setEventHandler { [self] in tick() }
            readySource = source
            sweepTimer = timer
            source.resume()
            timer.resume()
        }
    }

    /// Stops accepting, closes idle connections and lets busy ones finish their current response.
    func beginDraining() {
        queue.async { [self] in
            guard !draining, !ended else { return }
            draining = true
            closeListeningSocket()
            for client in Array(clients.values) where client.connection.isIdle {
                closeConnection(client)
            }
            if clients.isEmpty { end() }
        }
    }

    /// Closes everything now (the grace period is over).
    func stop() {
        queue.async { [self] in
            guard !ended else { return }
            for client in Array(clients.values) { closeConnection(client) }
            end()
        }
    }

    /// Waits until the loop has closed everything; false on timeout.
    func waitUntilFinished(deadline: DispatchTime) -> Bool {
        finished.wait(timeout: deadline) == .success
    }

    /// What a connection needs to answer requests read now on `socket`.
    func exchange(socket: Int32) -> Exchange {
        Exchange(handler: handler, dated: dated, draining: draining, now: now, socket: socket)
    }

    // MARK: Loop

    /// The read source's handler: the epoll set has ready sockets.
    ///
    /// Under load, sockets become ready again within microseconds of being served. Returning to
    /// Dispatch after every batch would pay a full event delivery each time (the manager thread
    /// wakes, re-arms the source and wakes a worker: about as much CPU as the requests of a small
    /// batch, measured +40% CPU per request at 64 connections). So after a batch with work the
    /// handler waits up to 1 ms for the next one, and yields as soon as the loop goes quiet or
    /// after 10 ms, which bounds how long the sweep timer and drain/stop tasks can be held back.
    private func serveReadySockets() {
        now = MonotonicClock.now()
        refreshDate()
        let started = now
        var wait: Int32 = 0
        while true {
            let count = epoll.wait(
                events: readyEvents, tokens: readyTokens, max: Self.batchSize, timeoutMilliseconds: wait)
            if count <= 0 { break }
            now = MonotonicClock.now()
            refreshDate()
            for index in 0..<count {
                let token = readyTokens[index]
                if token == Self.listenToken {
                    acceptConnections()
                } else if let client = clients[Int32(truncatingIfNeeded: token)] {
                    handle(client, events: readyEvents[index])
                }
            }
            if draining || now &- started >= Self.busyBudget { break }
            wait = Self.busyWaitMilliseconds
        }
        if draining, clients.isEmpty { end() }
    }

    /// The sweep timer's handler.
    private func tick() {
        now = MonotonicClock.now()
        refreshDate()
        sweepTimeouts()
        if draining, clients.isEmpty { end() }
    }

    /// Cancels the sources; the read source's cancel handler closes the epoll set and reports the
    /// loop finished. Cancelling also releases the handlers, and with them the loop.
    private func end() {
        guard !ended else { return }
        ended = true
        closeListeningSocket()
        sweepTimer?.cancel()
        readySource?.cancel()
    }

    func closeListeningSocket() {
        guard listenFD >= 0 else { return }
        epoll.remove(listenFD)
        close(listenFD)
        listenFD = -1
    }

    /// The Date header (RFC 9110 §6.6.1) and what embeds it, built once per second per loop.
    /// Checked on every wake-up (a vDSO `time` call) rather than on a timer, so it is never a
    /// second behind.
    private func refreshDate() {
        let second = time(nil)
        guard second != dateSecond else { return }
        dateSecond = second
        dated = DatedParts(second: second, parts: handler.writer.parts)
    }
}
