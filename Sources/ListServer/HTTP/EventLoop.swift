import CNIOShim
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
final class EventLoop: @unchecked Sendable {
    private static let listenToken = UInt64.max - 1
    private static let scratchSize = 65_536
    /// Stop reading (back-pressure) while this much response data is still unsent.
    private static let outputBacklogLimit = 4 * 1024 * 1024
    /// Largest request body read and discarded; bigger bodies get 413 and a close.
    private static let maxDiscardedBody = 1024 * 1024
    private static let lingerNanoseconds: UInt64 = 2_000_000_000
    /// Ready sockets taken per `epoll_wait`.
    private static let batchSize: Int32 = 256
    /// While a handler keeps finding ready sockets, it waits this long for more before handing
    /// the queue back to Dispatch, and stops after `busyBudget` in any case.
    private static let busyWaitMilliseconds: Int32 = 1
    private static let busyBudget: UInt64 = 10_000_000
    private static let sweepInterval = DispatchTimeInterval.milliseconds(250)

    let metrics = ServerMetrics()
    private let context: ServerContext
    private let responder: HTTPResponder
    private let parser: HTTPRequestParser
    private let limiter: ConnectionLimiter
    /// Every connection of this loop is read, written and closed only on this queue.
    private let queue: DispatchQueue
    /// This loop's listening socket; -1 once closed (draining).
    private var listenFD: Int32
    private let epollFD: Int32
    private let headerTimeout: UInt64
    private let idleTimeout: UInt64
    private let finished = DispatchSemaphore(value: 0)
    private var readySource: DispatchSourceRead?
    private var sweepTimer: DispatchSourceTimer?

    private var connections: [Int32: HTTPConnection] = [:]
    private var draining = false
    /// Set once the loop has closed everything and cancelled its sources.
    private var ended = false
    private var dateSecond = -1
    private var dated: DatedParts
    private var now: UInt64 = 0
    private let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: EventLoop.scratchSize)
    private let readyEvents = UnsafeMutablePointer<UInt32>.allocate(capacity: Int(EventLoop.batchSize))
    private let readyTokens = UnsafeMutablePointer<UInt64>.allocate(capacity: Int(EventLoop.batchSize))

    struct SetupError: Error, CustomStringConvertible {
        let description: String
    }

    init(context: ServerContext, limiter: ConnectionLimiter, listenFD: Int32, name: String) throws {
        self.context = context
        self.responder = HTTPResponder(context: context)
        self.parser = HTTPRequestParser(maxHeaderBytes: context.configuration.maxHeaderBytes, maxURIBytes: context.configuration.maxURIBytes)
        self.limiter = limiter
        self.listenFD = listenFD
        dated = DatedParts(second: time(nil), parts: context.parts)
        queue = DispatchQueue(label: name)
        headerTimeout = MonotonicClock.nanoseconds(context.configuration.headerReadTimeoutSeconds)
        idleTimeout = MonotonicClock.nanoseconds(context.configuration.keepAliveIdleTimeoutSeconds)
        epollFD = shim_epoll_create()
        guard epollFD >= 0 else { throw SetupError(description: "epoll_create1 failed: \(String(cString: strerror(errno)))") }
        guard shim_epoll_ctl(epollFD, 1, listenFD, SHIM_EPOLLIN, Self.listenToken) == 0 else {
            close(epollFD)
            throw SetupError(description: "epoll_ctl failed: \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        // A loop that was started closes its epoll descriptor in the read source's cancel handler.
        if readySource == nil { close(epollFD) }
        scratch.deallocate()
        readyEvents.deallocate()
        readyTokens.deallocate()
    }

    /// Arms the read source and the sweep timer; from here on the loop runs on its queue. The
    /// sources' handlers keep the loop alive until `end()` cancels them.
    func start() {
        queue.sync {
            let source = DispatchSource.makeReadSource(fileDescriptor: epollFD, queue: queue)
            source.setEventHandler { [self] in serveReadySockets() }
            source.setCancelHandler { [self] in
                close(epollFD)
                finished.signal()
            }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + Self.sweepInterval, repeating: Self.sweepInterval, leeway: .milliseconds(50))
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
            for connection in Array(connections.values) where isIdle(connection) {
                closeConnection(connection)
            }
            if connections.isEmpty { end() }
        }
    }

    /// Closes everything now (the grace period is over).
    func stop() {
        queue.async { [self] in
            guard !ended else { return }
            for connection in Array(connections.values) { closeConnection(connection) }
            end()
        }
    }

    /// Waits until the loop has closed everything; false on timeout.
    func waitUntilFinished(deadline: DispatchTime) -> Bool {
        finished.wait(timeout: deadline) == .success
    }

    var openConnections: Int { limiter.current }

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
            let count = Int(shim_epoll_wait(epollFD, readyEvents, readyTokens, Self.batchSize, wait))
            if count <= 0 { break }
            now = MonotonicClock.now()
            refreshDate()
            for index in 0..<count {
                let token = readyTokens[index]
                if token == Self.listenToken {
                    acceptConnections()
                } else if let connection = connections[Int32(truncatingIfNeeded: token)] {
                    handle(connection, events: readyEvents[index])
                }
            }
            if draining || now &- started >= Self.busyBudget { break }
            wait = Self.busyWaitMilliseconds
        }
        if draining, connections.isEmpty { end() }
    }

    /// The sweep timer's handler.
    private func tick() {
        now = MonotonicClock.now()
        refreshDate()
        sweepTimeouts()
        if draining, connections.isEmpty { end() }
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

    private func closeListeningSocket() {
        guard listenFD >= 0 else { return }
        _ = shim_epoll_ctl(epollFD, 2, listenFD, 0, 0)
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
        dated = DatedParts(second: second, parts: context.parts)
    }

    // MARK: Accepting

    private func acceptConnections() {
        for _ in 0..<64 where listenFD >= 0 {
            let fd = shim_accept_nonblocking(listenFD)
            if fd < 0 { return }
            if draining {
                close(fd)
                continue
            }
            guard limiter.acquire() else {
                refuse(fd)
                continue
            }
            _ = shim_set_int_option(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            let connection = HTTPConnection(fd: fd, peer: context.configuration.accessLog ? Self.peerName(fd) : "", idleDeadline: now &+ headerTimeout)
            connection.headDeadline = nil
            connections[fd] = connection
            connection.registeredEvents = SHIM_EPOLLIN | SHIM_EPOLLRDHUP
            if shim_epoll_ctl(epollFD, 1, fd, connection.registeredEvents, UInt64(fd)) != 0 {
                closeConnection(connection)
            }
        }
    }

    /// At `maxConnections`: a best-effort 503 with `Connection: close`, then close.
    private func refuse(_ fd: Int32) {
        metrics.recordRefusedConnection()
        let body = "{\"error\":\"server at connection limit\"}\n"
        let response = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Cache-Control: no-store\r\nRetry-After: 5\r\nConnection: close\r\n\r\n" + body
        _ = response.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        shutdown(fd, Int32(SHUT_WR))
        close(fd)
    }

    private static func peerName(_ fd: Int32) -> String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) == 0 }
        }
        guard ok else { return "-" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if Int32(storage.ss_family) == AF_INET {
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var ip = address.pointee.sin_addr
                    inet_ntop(AF_INET, &ip, &text, socklen_t(text.count))
                    return String(cString: text) + ":" + String(UInt16(bigEndian: address.pointee.sin_port))
                }
            }
        }
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                var ip = address.pointee.sin6_addr
                inet_ntop(AF_INET6, &ip, &text, socklen_t(text.count))
                return "[" + String(cString: text) + "]:" + String(UInt16(bigEndian: address.pointee.sin6_port))
            }
        }
    }

    // MARK: Connection I/O

    private func handle(_ connection: HTTPConnection, events: UInt32) {
        if events & (SHIM_EPOLLIN | SHIM_EPOLLRDHUP | SHIM_EPOLLHUP | SHIM_EPOLLERR) != 0 {
            guard readAvailable(connection) else { return }
        }
        settle(connection)
    }

    /// Reads what is there and answers every complete request. False when the connection closed.
    private func readAvailable(_ connection: HTTPConnection) -> Bool {
        for _ in 0..<4 {
            let count = read(connection.fd, scratch, Self.scratchSize)
            if count > 0 {
                switch connection.phase {
                case .open: ingest(connection, UnsafeBufferPointer(start: scratch, count: count))
                case .closingAfterWrite, .lingering: break  // nothing more will be answered
                }
                if count < Self.scratchSize || connection.output.pendingBytes >= Self.outputBacklogLimit { return true }
            } else if count == 0 {
                connection.peerClosed = true
                if connection.phase == .lingering || connection.output.isEmpty {
                    closeConnection(connection)
                    return false
                }
                connection.phase = .closingAfterWrite
                return true
            } else {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return true }
                closeConnection(connection)
                return false
            }
        }
        return true
    }

    private func ingest(_ connection: HTTPConnection, _ bytes: UnsafeBufferPointer<UInt8>) {
        if connection.input.isEmpty {
            let consumed = process(connection, bytes)
            if consumed < bytes.count, connection.phase == .open {
                connection.input.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[consumed...]))
            }
        } else {
            connection.input.append(contentsOf: bytes)
            processBuffered(connection)
        }
    }

    private func processBuffered(_ connection: HTTPConnection) {
        let consumed = connection.input.withUnsafeBufferPointer { process(connection, $0) }
        if connection.phase != .open {
            connection.input = []
        } else if consumed == connection.input.count {
            connection.input.removeAll(keepingCapacity: false)
        } else if consumed > 0 {
            connection.input.removeFirst(consumed)
        }
    }

    /// Parses and answers requests from `bytes`; returns how many bytes were used.
    private func process(_ connection: HTTPConnection, _ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var offset = 0
        requests: while connection.phase == .open {
            if connection.discardRemaining > 0 {
                let skip = min(connection.discardRemaining, bytes.count - offset)
                offset += skip
                connection.discardRemaining -= skip
                if connection.discardRemaining > 0 { break }
            }
            if offset == bytes.count || connection.output.pendingBytes >= Self.outputBacklogLimit { break }
            let slice = UnsafeBufferPointer(rebasing: bytes[offset...])
            let frame = HTTPResponder.Frame(bytes: slice, dated: dated, keepAlive: !draining)
            switch parser.parse(slice) {
            case .incomplete:
                if connection.headDeadline == nil { connection.headDeadline = now &+ headerTimeout }
                break requests
            case .failure(let failure):
                let answer = responder.error(failure.statusCode, failure.reason, route: .invalid, head: nil, frame: frame, close: true, into: &connection.output)
                finish(connection, answer, head: nil, bytes: slice)
                offset = bytes.count
            case .complete(var head):
                connection.headDeadline = nil
                offset += head.length
                let answer: HTTPResponder.Answer
                if head.chunked {
                    answer = responder.error(411, "request bodies must use Content-Length", route: .invalid, head: head, frame: frame, close: true, into: &connection.output)
                } else if let length = head.contentLength, length > Self.maxDiscardedBody {
                    answer = responder.error(413, "request body too large", route: .invalid, head: head, frame: frame, close: true, into: &connection.output)
                } else {
                    connection.discardRemaining = head.contentLength ?? 0
                    if !head.wantsKeepAlive { head.connectionClose = true }
                    let keepAlive = head.wantsKeepAlive && !draining
                    let requestFrame = HTTPResponder.Frame(bytes: slice, dated: dated, keepAlive: keepAlive)
                    answer = responder.respond(to: head, frame: requestFrame, site: context.currentSite, into: &connection.output)
                }
                finish(connection, answer, head: head, bytes: slice)
            }
        }
        return offset
    }

    private func finish(_ connection: HTTPConnection, _ answer: HTTPResponder.Answer, head: HTTPRequestHead?, bytes: UnsafeBufferPointer<UInt8>) {
        metrics.record(route: answer.route, status: answer.status)
        if answer.close { connection.phase = .closingAfterWrite }
        if context.configuration.accessLog {
            let method: String
            switch head?.method {
            case .get?: method = "GET"
            case .head?: method = "HEAD"
            case .post?: method = "POST"
            case .options?: method = "OPTIONS"
            case .other?: method = "OTHER"
            case nil: method = "-"
            }
            let target = head.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0.target]), as: UTF8.self) } ?? "-"
            let micros = (MonotonicClock.now() &- now) / 1000
            context.log.info("access \(connection.peer) \(method) \(target) \(answer.status) \(answer.bytes) \(micros)us")
        }
    }

    /// After reading: write what is queued, then decide the connection's next state and interest.
    private func settle(_ connection: HTTPConnection) {
        while !connection.output.isEmpty {
            var written = 0
            let result = connection.output.flush(to: connection.fd, written: &written)
            if written > 0 {
                metrics.addBytesSent(written)
                connection.idleDeadline = now &+ idleTimeout
            }
            switch result {
            case .failed:
                closeConnection(connection)
                return
            case .blocked:
                updateInterest(connection)
                return
            case .done:
                break
            }
            // Requests held back by the output backlog can be answered now.
            if connection.phase == .open, !connection.input.isEmpty, connection.discardRemaining == 0 || !connection.input.isEmpty {
                processBuffered(connection)
            }
        }
        switch connection.phase {
        case .closingAfterWrite:
            startLingering(connection)
            return
        case .lingering:
            break
        case .open:
            if connection.peerClosed || (draining && isIdle(connection)) {
                closeConnection(connection)
                return
            }
        }
        updateInterest(connection)
    }

    private func startLingering(_ connection: HTTPConnection) {
        if connection.peerClosed {
            closeConnection(connection)
            return
        }
        shutdown(connection.fd, Int32(SHUT_WR))
        connection.phase = .lingering
        connection.lingerDeadline = now &+ Self.lingerNanoseconds
        updateInterest(connection)
    }

    private func updateInterest(_ connection: HTTPConnection) {
        var wanted: UInt32 = 0
        if !connection.peerClosed {
            switch connection.phase {
            case .open where connection.output.pendingBytes < Self.outputBacklogLimit, .lingering:
                wanted |= SHIM_EPOLLIN | SHIM_EPOLLRDHUP
            default:
                break
            }
        }
        if !connection.output.isEmpty { wanted |= SHIM_EPOLLOUT }
        guard wanted != connection.registeredEvents else { return }
        connection.registeredEvents = wanted
        if shim_epoll_ctl(epollFD, 3, connection.fd, wanted, UInt64(connection.fd)) != 0 {
            closeConnection(connection)
        }
    }

    private func isIdle(_ connection: HTTPConnection) -> Bool {
        connection.output.isEmpty && connection.input.isEmpty && connection.discardRemaining == 0 && connection.headDeadline == nil
            && connection.phase == .open
    }

    /// Slowloris, idle keep-alive, stalled readers and lingering closes all end here.
    private func sweepTimeouts() {
        for connection in Array(connections.values) {
            switch connection.phase {
            case .lingering:
                if now > connection.lingerDeadline { closeConnection(connection) }
            case .open, .closingAfterWrite:
                if let deadline = connection.headDeadline, connection.output.isEmpty {
                    if now > deadline { closeConnection(connection) }
                } else if now > connection.idleDeadline {
                    closeConnection(connection)
                }
            }
        }
    }

    private func closeConnection(_ connection: HTTPConnection) {
        guard connections.removeValue(forKey: connection.fd) != nil else { return }
        connection.output.discard()
        close(connection.fd)
        limiter.release()
    }
}
