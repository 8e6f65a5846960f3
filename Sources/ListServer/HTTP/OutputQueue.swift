import Glibc

/// The bytes a connection still owes its client, in response order (which is how pipelined
/// requests get their answers in order, RFC 9112 §9.3.2). Flushed with `writev`, many segments
/// per system call.
struct OutputQueue {
    struct Segment {
        let bytes: ResponseBytes
        var start: Int
        let end: Int
    }

    private var segments: [Segment] = []
    private var head = 0
    /// Bytes queued and not yet written.
    private(set) var pendingBytes = 0

    var isEmpty: Bool { head == segments.count }

    mutating func append(_ bytes: ResponseBytes) {
        append(bytes, 0..<bytes.count)
    }

    mutating func append(_ bytes: ResponseBytes, _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        segments.append(Segment(bytes: bytes, start: range.lowerBound, end: range.upperBound))
        pendingBytes += range.count
    }

    enum FlushResult {
        /// Everything was written.
        case done
        /// The socket buffer is full; wait for EPOLLOUT.
        case blocked
        /// The peer is gone (EPIPE, ECONNRESET, …).
        case failed
    }

    /// Writes as much as the socket takes. `written` counts the bytes sent.
    mutating func flush(to fd: Int32, written: inout Int) -> FlushResult {
        var vectors = [iovec](repeating: iovec(), count: 0)
        vectors.reserveCapacity(16)
        while head < segments.count {
            vectors.removeAll(keepingCapacity: true)
            var index = head
            while index < segments.count, vectors.count < 64 {
                let segment = segments[index]
                vectors.append(iovec(iov_base: UnsafeMutableRawPointer(segment.bytes.base + segment.start), iov_len: segment.end - segment.start))
                index += 1
            }
            let result = writev(fd, vectors, Int32(vectors.count))
            if result < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return .blocked }
                return .failed
            }
            written += result
            pendingBytes -= result
            consume(result)
        }
        segments.removeAll(keepingCapacity: segments.capacity <= 64)
        head = 0
        return .done
    }

    private mutating func consume(_ count: Int) {
        var remaining = count
        while remaining > 0, head < segments.count {
            let available = segments[head].end - segments[head].start
            if remaining >= available {
                remaining -= available
                head += 1
            } else {
                segments[head].start += remaining
                remaining = 0
            }
        }
        if head == segments.count {
            segments.removeAll(keepingCapacity: segments.capacity <= 64)
            head = 0
        }
    }

    /// Drops everything (the connection is closing).
    mutating func discard() {
        segments.removeAll()
        head = 0
        pendingBytes = 0
    }
}
