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
        let (fd, port) = try LoopbackSocket.listen(backlog: 8)
        self.port = port
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
