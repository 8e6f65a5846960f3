import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whole reads and writes on a pipe descriptor, retried on EINTR and short counts.
public enum PipeIO {
    /// Writes every byte; false when the reader has gone (EPIPE) or another error stops it.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// Reads exactly `count` bytes, waiting at most until `deadline` (nil: no limit) for each chunk.
    /// nil at end of file or on a read error; throws `TimedOut` when the deadline passes first.
    public static func readExactly(_ fd: Int32, _ count: Int, deadline: Date? = nil) throws -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            if let deadline {
                let milliseconds = Int32(max(0, min(Double(Int32.max), deadline.timeIntervalSinceNow * 1000)))
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, milliseconds)
                if ready < 0, errno == EINTR { continue }
                if ready == 0 { throw TimedOut() }
            }
            let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + offset, count - offset) }
            if got > 0 {
                offset += got
            } else if got < 0, errno == EINTR {
                continue
            } else {
                return nil
            }
        }
        return bytes
    }

    /// Reads up to and including the first newline (one byte at a time: what follows stays in the
    /// pipe); nil at end of file before any newline.
    public static func readLine(_ fd: Int32, deadline: Date? = nil) throws -> String? {
        var line: [UInt8] = []
        while let byte = try readExactly(fd, 1, deadline: deadline) {
            line.append(byte[0])
            if byte[0] == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
        }
        return nil
    }

    /// The deadline of `readExactly` passed.
    public struct TimedOut: Error {}
}
