extension EventLoop {
    /// Runs on the sweep timer (every `sweepInterval`): closes every connection whose deadline
    /// has passed, as `HTTPConnection.hasExpired` judges it.
    func sweepTimeouts() {
        for client in Array(clients.values) where client.connection.hasExpired(now: now) {
            closeConnection(client)
        }
    }
}
