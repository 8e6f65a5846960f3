/// One client connection's protocol state, without its socket: request bytes in, response
/// segments queued in `output`, deadlines judged against the clock value the caller passes.
///
/// The event loop does the I/O and asks this type what to do next; tests drive it the same way
/// with a fake clock (the shape of swift-nio's handler tests). Owned by one event loop, so no
/// locks.
///
/// Transitions, each a method below: `receive` (bytes arrived), `peerFinishedSending` (read got
/// end of stream), `wrote` (the socket took bytes), `resumeHeldRequests` (the output backlog
/// drained), `outputDrained` (everything queued is written: keep open, close, or linger),
/// `hasExpired` (a deadline passed).
final class HTTPConnection {
    enum Phase: Equatable {
        /// Reading requests and writing responses.
        case open
        /// The last response is queued; close once it is written.
        case closingAfterWrite
        /// Our side is shut down for writing; reading and discarding until the peer closes or a
        /// short timer fires, so unread request bytes do not turn our last response into a RST.
        case lingering
    }

    /// What the loop does once every queued byte is written.
    enum AfterWrite: Equatable {
        case keepOpen
        case close
        /// `shutdown(SHUT_WR)` and keep reading until the peer closes or the linger deadline.
        case shutdownWriteAndLinger
    }

    struct Timeouts {
        /// A request head must be complete this long after its first byte (slowloris), and a new
        /// connection must send something within it.
        var header: UInt64
        /// Idle keep-alive limit, and the write-progress limit while output is pending.
        var idle: UInt64
        var linger: UInt64 = 2_000_000_000
    }

    /// Stop reading (back-pressure) while this much response data is still unsent.
    static let outputBacklogLimit = 4 * 1024 * 1024
    /// Largest request body read and discarded; bigger bodies get 413 and a close.
    static let maxDiscardedBody = 1024 * 1024

    let timeouts: Timeouts
    private(set) var phase = Phase.open
    /// Unparsed request bytes (empty for most of a connection's life: a request read in one piece
    /// is parsed straight from the caller's buffer).
    private(set) var input: [UInt8] = []
    /// What the connection still owes its client; the loop flushes it to the socket.
    var output = OutputQueue()
    /// Request body bytes still to skip (bodies are read and discarded).
    private(set) var discardRemaining = 0
    /// Set when the first byte of a request head arrives; the head must be complete by then.
    private(set) var headDeadline: UInt64?
    private(set) var idleDeadline: UInt64
    private(set) var lingerDeadline: UInt64 = 0
    /// True once the peer has half-closed; nothing more will be read.
    private(set) var peerClosed = false

    /// A connection just accepted at `now`.
    init(now: UInt64, timeouts: Timeouts) {
        self.timeouts = timeouts
        idleDeadline = now &+ timeouts.header
    }

    /// Called once per answered request, for counters and the access log.
    typealias Answered = (HTTPAnswer, HTTPRequestHead?, UnsafeBufferPointer<UInt8>) -> Void

    // MARK: Transitions

    /// Bytes arrived: answers every complete request in them (or in what was buffered before).
    func receive(_ bytes: UnsafeBufferPointer<UInt8>, _ exchange: Exchange, answered: Answered) {
        guard phase == .open else { return }  // nothing more will be answered
        if input.isEmpty {
            let consumed = process(bytes, exchange, answered: answered)
            if consumed < bytes.count, phase == .open {
                input.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[consumed...]))
            }
        } else {
            input.append(contentsOf: bytes)
            processBuffered(exchange, answered: answered)
        }
    }

    /// The peer sent end of stream. True when the connection should close now; otherwise the
    /// queued answers are written first.
    func peerFinishedSending() -> Bool {
        peerClosed = true
        if phase == .lingering || output.isEmpty { return true }
        phase = .closingAfterWrite
        return false
    }

    /// The socket took some of `output`: the client is making progress.
    func wrote(now: UInt64) {
        idleDeadline = now &+ timeouts.idle
    }

    /// Requests held back by the output backlog can be answered once it has drained.
    func resumeHeldRequests(_ exchange: Exchange, answered: Answered) {
        if phase == .open, !input.isEmpty { processBuffered(exchange, answered: answered) }
    }

    /// Everything queued is written; decides the connection's fate.
    func outputDrained(now: UInt64, draining: Bool) -> AfterWrite {
        switch phase {
        case .closingAfterWrite:
            if peerClosed { return .close }
            phase = .lingering
            lingerDeadline = now &+ timeouts.linger
            return .shutdownWriteAndLinger
        case .lingering:
            return .keepOpen
        case .open:
            return peerClosed || (draining && isIdle) ? .close : .keepOpen
        }
    }

    /// Slowloris, idle keep-alive, stalled readers and lingering closes all end here.
    func hasExpired(now: UInt64) -> Bool {
        switch phase {
        case .lingering:
            return now > lingerDeadline
        case .open, .closingAfterWrite:
            if let deadline = headDeadline, output.isEmpty { return now > deadline }
            return now > idleDeadline
        }
    }

    // MARK: Questions

    /// Between requests with nothing owed: safe to close when draining.
    var isIdle: Bool {
        output.isEmpty && input.isEmpty && discardRemaining == 0 && headDeadline == nil && phase == .open
    }

    var wantsRead: Bool {
        guard !peerClosed else { return false }
        switch phase {
        case .open: return output.pendingBytes < Self.outputBacklogLimit
        case .lingering: return true
        case .closingAfterWrite: return false
        }
    }

    var wantsWrite: Bool { !output.isEmpty }

    // MARK: Requests

    private func processBuffered(_ exchange: Exchange, answered: Answered) {
        let consumed = input.withUnsafeBufferPointer { process($0, exchange, answered: answered) }
        if phase != .open {
            input = []
        } else if consumed == input.count {
            input.removeAll(keepingCapacity: false)
        } else if consumed > 0 {
            input.removeFirst(consumed)
        }
    }

    /// Parses and answers requests from `bytes`; returns how many bytes were used.
    private func process(_ bytes: UnsafeBufferPointer<UInt8>, _ exchange: Exchange, answered: Answered) -> Int {
        let handler = exchange.handler
        var offset = 0
        requests: while phase == .open {
            if discardRemaining > 0 {
                let skip = min(discardRemaining, bytes.count - offset)
                offset += skip
                discardRemaining -= skip
                if discardRemaining > 0 { break }
            }
            if offset == bytes.count || output.pendingBytes >= Self.outputBacklogLimit { break }
            let slice = UnsafeBufferPointer(rebasing: bytes[offset...])
            let frame = ResponseWriter.Frame(
                bytes: slice, dated: exchange.dated, keepAlive: !exchange.draining, socket: exchange.socket)
            switch handler.parser.parse(slice) {
            case .incomplete:
                if headDeadline == nil { headDeadline = exchange.now &+ timeouts.header }
                break requests
            case .failure(let failure):
                let answer = handler.writer.error(
                    failure.statusCode, failure.reason, route: handler.writer.routes.invalid, head: nil,
                    frame: frame, close: true, into: &output)
                finish(answer, head: nil, bytes: slice, answered: answered)
                offset = bytes.count
            case .complete(var head):
                headDeadline = nil
                offset += head.length
                let answer: HTTPAnswer
                if head.chunked {
                    answer = handler.writer.error(
                        411, "request bodies must use Content-Length", route: handler.writer.routes.invalid,
                        head: head, frame: frame, close: true, into: &output)
                } else if let length = head.contentLength, length > Self.maxDiscardedBody {
                    answer = handler.writer.error(
                        413, "request body too large", route: handler.writer.routes.invalid,
                        head: head, frame: frame, close: true, into: &output)
                } else {
                    discardRemaining = head.contentLength ?? 0
                    if !head.wantsKeepAlive { head.connectionClose = true }
                    let requestFrame = ResponseWriter.Frame(
                        bytes: slice, dated: exchange.dated, keepAlive: head.wantsKeepAlive && !exchange.draining,
                        socket: exchange.socket)
                    answer = handler.answer(head, frame: requestFrame, into: &output)
                }
                finish(answer, head: head, bytes: slice, answered: answered)
            }
        }
        return offset
    }

    private func finish(
        _ answer: HTTPAnswer, head: HTTPRequestHead?, bytes: UnsafeBufferPointer<UInt8>, answered: Answered
    ) {
        if answer.close { phase = .closingAfterWrite }
        answered(answer, head, bytes)
    }
}

/// What answering needs besides the connection: the shared handler, this second's Date parts,
/// whether the server is draining, and the loop's clock.
struct Exchange {
    let handler: RequestHandler
    let dated: DatedParts
    let draining: Bool
    let now: UInt64
    /// The connection's socket, so a responder can ask for the peer's address when it needs it.
    let socket: Int32
}
