import CNIOShim
import Glibc

/// An epoll set with its operations named (`EPOLL_CTL_*` are macros Swift cannot see; the
/// shim passes the numbers through).
struct Epoll {
    private enum Operation: Int32 {
        case add = 1
        case delete = 2
        case modify = 3
    }

    /// A listening socket has connections to accept.
    static let acceptReady = SHIM_EPOLLIN
    static let readable = SHIM_EPOLLIN | SHIM_EPOLLRDHUP
    static let writable = SHIM_EPOLLOUT
    /// Events after which a read tells what happened (data, end of stream or an error).
    static let readReady = SHIM_EPOLLIN | SHIM_EPOLLRDHUP | SHIM_EPOLLHUP | SHIM_EPOLLERR

    let fd: Int32

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init() throws {
        fd = shim_epoll_create()
        guard fd >= 0 else { throw Failure(description: "epoll_create1 failed: \(String(cString: strerror(errno)))") }
    }

    /// Watches `socket` for `events`; `token` comes back from `wait`. False on failure.
    func add(_ socket: Int32, events: UInt32, token: UInt64) -> Bool {
        shim_epoll_ctl(fd, Operation.add.rawValue, socket, events, token) == 0
    }

    func modify(_ socket: Int32, events: UInt32, token: UInt64) -> Bool {
        shim_epoll_ctl(fd, Operation.modify.rawValue, socket, events, token) == 0
    }

    func remove(_ socket: Int32) {
        _ = shim_epoll_ctl(fd, Operation.delete.rawValue, socket, 0, 0)
    }

    /// Ready sockets into `events`/`tokens` (at most `max`); waits up to `timeoutMilliseconds`.
    func wait(
        events: UnsafeMutablePointer<UInt32>, tokens: UnsafeMutablePointer<UInt64>, max: Int32,
        timeoutMilliseconds: Int32
    ) -> Int {
        Int(shim_epoll_wait(fd, events, tokens, max, timeoutMilliseconds))
    }
}
