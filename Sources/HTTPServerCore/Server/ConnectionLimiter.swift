import Foundation

/// Counts open connections across all event loops so `maxConnections` holds server-wide.
final class ConnectionLimiter: @unchecked Sendable {
    private let lock = NSLock()
    private var open = 0
    let maximum: Int

    init(maximum: Int) {
        self.maximum = maximum
    }

    /// Takes a slot; false when the server is full.
    func acquire() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard open < maximum else { return false }
        open += 1
        return true
    }

    func release() {
        lock.lock()
        open -= 1
        lock.unlock()
    }

    var current: Int {
        lock.lock()
        defer { lock.unlock() }
        return open
    }
}
