import Foundation

/// Polls `condition` every `interval` seconds until it holds or `timeout` seconds pass: a bounded
/// wait on a condition, never a sleep standing in for one. Returns whether the condition held.
public func eventually(timeout: Double, interval: Double = 0.05, _ condition: () async throws -> Bool) async rethrows
    -> Bool
{
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if try await condition() { return true }
        if Date() >= deadline { return false }
        try? await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
    }
}

/// `eventually` for synchronous callers (a test helper's initializer, a `deinit`-style teardown):
/// the same bounded poll, blocking the calling thread between checks.
public func eventually(timeout: Double, interval: Double = 0.05, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        Thread.sleep(forTimeInterval: interval)
    }
}
