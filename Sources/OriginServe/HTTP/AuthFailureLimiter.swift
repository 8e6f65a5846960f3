import Foundation

/// Slows token guessing on the endpoints behind the admin token (`/explain`, `POST /admin/refresh`):
/// a client address that fails the token `maxFailures` times within `windowSeconds` is refused
/// (429 with `Retry-After`) without its token being looked at, until that window has passed.
///
/// Bounded: at most `maxClients` addresses are tracked. When the table is full, expired entries
/// go; if none has expired, new addresses share one overflow entry, so spraying addresses neither
/// grows memory nor escapes the limit (at worst it refuses other new addresses for one window).
package final class AuthFailureLimiter: @unchecked Sendable {
    static let overflowKey = "*"

    let maxFailures: Int
    let windowSeconds: Double
    let maxClients: Int
    /// Monotonic seconds; injectable so tests can pass a window without waiting for it.
    private let clock: @Sendable () -> Double
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]

    private struct Entry {
        var windowStart: Double
        var failures: Int
    }

    package init(
        maxFailures: Int = 10, windowSeconds: Double = 60, maxClients: Int = 4_096,
        clock: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }
    ) {
        self.maxFailures = maxFailures
        self.windowSeconds = windowSeconds
        self.maxClients = maxClients
        self.clock = clock
    }

    /// Whole seconds until `client` may present a token again; nil when it may now.
    func refusal(for client: String) -> Int? {
        let now = clock()
        return lock.withLock {
            guard let key = trackedKey(client), let entry = entries[key], now - entry.windowStart < windowSeconds,
                entry.failures >= maxFailures
            else { return nil }
            return max(1, Int((entry.windowStart + windowSeconds - now).rounded(.up)))
        }
    }

    /// Counts a wrong or missing token from `client`.
    func recordFailure(_ client: String) {
        let now = clock()
        lock.withLock {
            let key = trackedKey(client) ?? admit(client, now: now)
            var entry = entries[key] ?? Entry(windowStart: now, failures: 0)
            if now - entry.windowStart >= windowSeconds { entry = Entry(windowStart: now, failures: 0) }
            entry.failures += 1
            entries[key] = entry
        }
    }

    /// Addresses tracked now (for tests and /metrics-style checks of the bound).
    var trackedClients: Int { lock.withLock { entries.count } }

    // Under the lock.
    private func trackedKey(_ client: String) -> String? {
        if entries[client] != nil { return client }
        return entries.count >= maxClients && entries[Self.overflowKey] != nil ? Self.overflowKey : nil
    }

    // Under the lock: the key a new address is counted under.
    private func admit(_ client: String, now: Double) -> String {
        if entries.count >= maxClients {
            entries = entries.filter { now - $0.value.windowStart < windowSeconds }
        }
        // One slot is kept for the overflow entry.
        return entries.count < maxClients - 1 ? client : Self.overflowKey
    }
}
