import Foundation

/// A TCP connection to 127.0.0.1 for tests that speak raw bytes (tests never leave loopback).
public enum LoopbackSocket {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Connects to 127.0.0.1:`port` with send and receive timeouts; the descriptor is close-on-exec,
    /// so child processes other tests start do not inherit (and keep open) the connection.
    public static func connect(port: Int, timeout: Double = 10) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed: errno \(errno)") }
        var time = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            let code = errno
            close(fd)
            throw Failure(description: "connect to 127.0.0.1:\(port) failed: errno \(code)")
        }
        return fd
    }
}
