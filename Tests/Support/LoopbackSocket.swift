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

    /// A listening socket on 127.0.0.1 at a port the kernel picks (`SO_REUSEADDR`, so a test's port
    /// in TIME_WAIT does not hold the next one up); the caller owns and closes the descriptor.
    public static func listen(backlog: Int32) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && Glibc.listen(fd, backlog) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard listening else {
            let code = errno
            close(fd)
            throw Failure(description: "bind/listen on 127.0.0.1 failed: errno \(code)")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
