/// One client connection's state, owned by exactly one event loop thread (never shared, so no
/// locks). The loop drives it: bytes in, parsed heads out, responses queued, timers checked.
final class HTTPConnection {
    enum Phase {
        /// Reading requests and writing responses.
        case open
        /// The last response is queued; close once it is written.
        case closingAfterWrite
        /// Our side is shut down for writing; reading and discarding until the peer closes or a
        /// short timer fires, so unread request bytes do not turn our last response into a RST.
        case lingering
    }

    let fd: Int32
    let peer: String
    var phase = Phase.open
    /// Unparsed request bytes (empty for most of a connection's life: a request read in one piece
    /// is parsed straight from the loop's scratch buffer).
    var input: [UInt8] = []
    var output = OutputQueue()
    /// Request body bytes still to skip (bodies are read and discarded).
    var discardRemaining = 0
    /// Set when the first byte of a request head arrives; the head must be complete by then.
    var headDeadline: UInt64?
    /// Idle keep-alive limit, or the write-progress limit while output is pending.
    var idleDeadline: UInt64
    var lingerDeadline: UInt64 = 0
    /// The epoll interest currently registered.
    var registeredEvents: UInt32 = 0
    /// True once the peer has half-closed; nothing more will be read.
    var peerClosed = false

    init(fd: Int32, peer: String, idleDeadline: UInt64) {
        self.fd = fd
        self.peer = peer
        self.idleDeadline = idleDeadline
    }
}
