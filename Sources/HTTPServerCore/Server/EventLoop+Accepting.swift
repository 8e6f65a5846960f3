import CNIOShim
import Foundation
import Glibc

extension EventLoop {
    /// New connections on this loop's listening socket: admitted while the server has room,
    /// refused with a 503 when it is full, dropped while draining.
    func acceptConnections() {
        for _ in 0..<64 where listenFD >= 0 {
            let fd = shim_accept_nonblocking(listenFD)
            if fd < 0 { return }
            if draining {
                close(fd)
                continue
            }
            guard limiter.acquire() else {
                refuse(fd)
                continue
            }
            _ = shim_set_int_option(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            let client = Client(
                fd: fd, peer: accessLog.enabled ? Self.peerName(fd) : "",
                connection: HTTPConnection(now: now, timeouts: timeouts))
            clients[fd] = client
            client.registeredEvents = Epoll.readable
            if !epoll.add(fd, events: client.registeredEvents, token: UInt64(fd)) {
                closeConnection(client)
            }
        }
    }

    /// At `maxConnections`: the prepared 503 with `Connection: close`, written once without
    /// waiting (best effort: the socket is new, so its buffer has room), then close.
    private func refuse(_ fd: Int32) {
        metrics.recordRefusedConnection()
        var output = OutputQueue()
        _ = handler.writer.connectionLimitRefusal(into: &output)
        var written = 0
        _ = output.flush(to: fd, written: &written)
        output.discard()
        shutdown(fd, Int32(SHUT_WR))
        close(fd)
    }

    static func peerName(_ fd: Int32) -> String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) == 0 }
        }
        guard ok else { return "-" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if Int32(storage.ss_family) == AF_INET {
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var ip = address.pointee.sin_addr
                    inet_ntop(AF_INET, &ip, &text, socklen_t(text.count))
                    return String(cString: text) + ":" + String(UInt16(bigEndian: address.pointee.sin_port))
                }
            }
        }
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                var ip = address.pointee.sin6_addr
                inet_ntop(AF_INET6, &ip, &text, socklen_t(text.count))
                return "[" + String(cString: text) + "]:" + String(UInt16(bigEndian: address.pointee.sin6_port))
            }
        }
    }
}
