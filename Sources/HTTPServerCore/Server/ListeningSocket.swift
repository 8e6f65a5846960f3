import CNIOShim
import Glibc

/// Opens the non-blocking listening socket on `listen.address:listen.port` (IPv4 or IPv6 literal).
enum ListeningSocket {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Returns the descriptor and the bound port (the kernel's choice when `port` is 0).
    /// With `reusePort`, several sockets (one per event loop) bind the same port and the kernel
    /// spreads new connections across them by hash, so a burst of connects cannot pile onto one
    /// loop (SO_REUSEPORT only lets sockets of the same user share the port).
    static func open(address: String, port: Int, reusePort: Bool, backlog: Int32 = 4096) throws -> (
        fd: Int32, port: Int
    ) {
        let isIPv6 = address.contains(":")
        let family = isIPv6 ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed: \(String(cString: strerror(errno)))") }
        func fail(_ what: String) -> Failure {
            let message = "\(what) \(address):\(port) failed: \(String(cString: strerror(errno)))"
            close(fd)
            return Failure(description: message)
        }
        _ = shim_set_int_option(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        if reusePort, shim_set_int_option(fd, SOL_SOCKET, SO_REUSEPORT, 1) != 0 { throw fail("SO_REUSEPORT on") }
        let bound: Int32?
        if isIPv6 {
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = UInt16(port).bigEndian
            bound =
                inet_pton(AF_INET6, address, &socketAddress.sin6_addr) == 1 ? bind(fd, to: socketAddress) : nil
        } else {
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = UInt16(port).bigEndian
            bound = inet_pton(AF_INET, address, &socketAddress.sin_addr) == 1 ? bind(fd, to: socketAddress) : nil
        }
        guard let bound else {
            close(fd)
            let literal = isIPv6 ? "IPv6" : "IPv4 or IPv6"
            throw Failure(description: "listen address \(address) is not an \(literal) literal")
        }
        guard bound == 0 else { throw fail("bind") }
        guard Glibc.listen(fd, backlog) == 0 else { throw fail("listen on") }
        guard shim_set_nonblocking(fd) == 0 else { throw fail("O_NONBLOCK on") }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let boundPort: UInt16 = withUnsafePointer(to: &storage) {
            isIPv6
                ? $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
                : $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        return (fd, Int(boundPort))
    }

    /// `bind(2)` with an IPv4 or IPv6 socket address; 0 or -1 as bind returns.
    private static func bind<SocketAddress>(_ fd: Int32, to socketAddress: SocketAddress) -> Int32 {
        withUnsafePointer(to: socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<SocketAddress>.size))
            }
        }
    }
}
