import Glibc

/// The bytes a connection still owes its client, in response order (which is how pipelined
/// requests get their answers in order, RFC 9112 §9.3.2). Memory segments go out with one
/// `sendmsg` per up to 64 segments; memory-file bodies with `sendfile`.
public struct OutputQueue {
    /// A slice of memory bytes or of a memory file (sent with sendfile).
    struct Segment {
        let bytes: ResponseBytes?
        let file: FileBody?
        var start: Int
        let end: Int
    }

    /// A vanished peer is an EPIPE, never SIGPIPE; MSG_MORE holds a head back for the body after it.
    private static let noSignal = Int32(MSG_NOSIGNAL)
    private static let moreFollows = Int32(MSG_MORE)

    private var segments: [Segment] = []
    private var head = 0
    /// Bytes queued and not yet written.
    private(set) var pendingBytes = 0

    public init() {}

    var isEmpty: Bool { head == segments.count }

    mutating func append(_ bytes: ResponseBytes) {
        append(bytes, 0..<bytes.count)
    }

    mutating func append(_ bytes: ResponseBytes, _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        segments.append(Segment(bytes: bytes, file: nil, start: range.lowerBound, end: range.upperBound))
        pendingBytes += range.count
    }

    mutating func append(_ file: FileBody, _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        segments.append(Segment(bytes: nil, file: file, start: range.lowerBound, end: range.upperBound))
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
        // The iovec array lives on the stack: no allocation per flush.
        let result: FlushResult = withUnsafeTemporaryAllocation(of: iovec.self, capacity: 64) { vectors in
            while head < segments.count {
                if let file = segments[head].file {
                    var offset = off_t(segments[head].start)
                    let count = sendfile(fd, file.fd, &offset, segments[head].end - segments[head].start)
                    if count < 0 {
                        if errno == EINTR { continue }
                        if errno == EAGAIN || errno == EWOULDBLOCK { return .blocked }
                        return .failed
                    }
                    if count == 0 { return .failed }  // the file is shorter than promised: never expected
                    written += count
                    pendingBytes -= count
                    consume(count)
                    continue
                }
                var used = 0
                var index = head
                while index < segments.count, used < 64, let bytes = segments[index].bytes {
                    let segment = segments[index]
                    vectors[used] = iovec(
                        iov_base: UnsafeMutableRawPointer(bytes.base + segment.start),
                        iov_len: segment.end - segment.start)
                    used += 1
                    index += 1
                }
                // MSG_MORE when a file body follows: the head leaves in the same packet as the body.
                let more = index < segments.count && segments[index].file != nil
                var message = msghdr()
                message.msg_iov = vectors.baseAddress
                message.msg_iovlen = used
                let count = sendmsg(fd, &message, Self.noSignal | (more ? Self.moreFollows : 0))
                if count < 0 {
                    if errno == EINTR { continue }
                    if errno == EAGAIN || errno == EWOULDBLOCK { return .blocked }
                    return .failed
                }
                written += count
                pendingBytes -= count
                consume(count)
            }
            return .done
        }
        if result == .done {
            segments.removeAll(keepingCapacity: segments.capacity <= 64)
            head = 0
        }
        return result
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

    /// Takes everything queued as bytes, as a socket would receive them: for callers without a
    /// socket (the connection tests and the fuzz target).
    mutating func drain() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(pendingBytes)
        for segment in segments[head...] {
            if let memory = segment.bytes {
                bytes.append(
                    contentsOf: UnsafeBufferPointer(
                        start: memory.base + segment.start, count: segment.end - segment.start))
            } else if let file = segment.file {
                var chunk = [UInt8](repeating: 0, count: segment.end - segment.start)
                let count = chunk.withUnsafeMutableBytes {
                    pread(file.fd, $0.baseAddress, $0.count, off_t(segment.start))
                }
                bytes.append(contentsOf: chunk.prefix(max(0, count)))
            }
        }
        discard()
        return bytes
    }

    /// Drops everything (the connection is closing).
    mutating func discard() {
        segments.removeAll()
        head = 0
        pendingBytes = 0
    }
}
