import Foundation
import Glibc

/// Moving bytes between sockets and `HTTPConnection`s; the connection decides, this only does
/// the system calls and keeps the epoll interest in step.
extension EventLoop {
    func handle(_ client: Client, events: UInt32) {
        if events & Epoll.readReady != 0 {
            guard readAvailable(client) else { return }
        }
        settle(client)
    }

    /// Reads what is there and lets the connection answer it. False when the connection closed.
    private func readAvailable(_ client: Client) -> Bool {
        let connection = client.connection
        for _ in 0..<4 {
            let count = read(client.fd, scratch, Self.scratchSize)
            if count > 0 {
                connection.receive(UnsafeBufferPointer(start: scratch, count: count), exchange(socket: client.fd)) {
                    answer, head, bytes in
                    answered(client, answer, head: head, bytes: bytes)
                }
                if count < Self.scratchSize || connection.output.pendingBytes >= HTTPConnection.outputBacklogLimit {
                    return true
                }
            } else if count == 0 {
                if connection.peerFinishedSending() {
                    closeConnection(client)
                    return false
                }
                return true
            } else {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return true }
                closeConnection(client)
                return false
            }
        }
        return true
    }

    private func answered(
        _ client: Client, _ answer: HTTPAnswer, head: HTTPRequestHead?, bytes: UnsafeBufferPointer<UInt8>
    ) {
        metrics.record(route: answer.route, status: answer.status)
        accessLog.record(peer: client.peer, head: head, bytes: bytes, answer: answer, startedAt: now)
    }

    /// After reading: write what is queued, then apply the connection's next state and interest.
    private func settle(_ client: Client) {
        let connection = client.connection
        while !connection.output.isEmpty {
            var written = 0
            let result = connection.output.flush(to: client.fd, written: &written)
            if written > 0 {
                metrics.addBytesSent(written)
                connection.wrote(now: now)
            }
            switch result {
            case .failed:
                closeConnection(client)
                return
            case .blocked:
                updateInterest(client)
                return
            case .done:
                break
            }
            connection.resumeHeldRequests(exchange(socket: client.fd)) { answer, head, bytes in
                answered(client, answer, head: head, bytes: bytes)
            }
        }
        switch connection.outputDrained(now: now, draining: draining) {
        case .close:
            closeConnection(client)
            return
        case .shutdownWriteAndLinger:
            shutdown(client.fd, Int32(SHUT_WR))
        case .keepOpen:
            break
        }
        updateInterest(client)
    }

    private func updateInterest(_ client: Client) {
        var wanted: UInt32 = 0
        if client.connection.wantsRead { wanted |= Epoll.readable }
        if client.connection.wantsWrite { wanted |= Epoll.writable }
        guard wanted != client.registeredEvents else { return }
        client.registeredEvents = wanted
        if !epoll.modify(client.fd, events: wanted, token: UInt64(client.fd)) {
            closeConnection(client)
        }
    }

    func closeConnection(_ client: Client) {
        guard clients.removeValue(forKey: client.fd) != nil else { return }
        client.connection.output.discard()
        close(client.fd)
        limiter.release()
    }
}
