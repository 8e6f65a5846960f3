import Foundation
import TestSupport

@testable import ListOrigin
@testable import OriginStore

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP port that accepts connections into the kernel backlog but never reads or answers:
/// a client connects and then waits forever (until its own timeout).
package final class SilentListener: @unchecked Sendable {
    package let port: Int
    private let fd: Int32

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 8) == 0 else { throw UpstreamServer.ServerError("bind/listen: \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.fd = fd
    }

    deinit { close(fd) }
}

/// Collects log lines so a test can assert what was logged.
package final class LogLines: @unchecked Sendable {
    package init() {}
    private let lock = NSLock()
    private var stored: [String] = []

    package var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    package var log: Log {
        var log = Log(label: "test")
        log.sink = { [self] line in
            lock.lock()
            stored.append(line)
            lock.unlock()
        }
        return log
    }
}
