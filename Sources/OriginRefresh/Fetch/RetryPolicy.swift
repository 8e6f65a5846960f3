import Foundation
import OriginConfig
import OriginStore

/// Exponential backoff with jitter: attempt n waits a random time between half and all of
/// `min(max, base · 2^(n-1))`, so many origins retrying a sick upstream do not do it in step.
package struct RetryPolicy: Sendable {
    package var attempts: Int
    var baseDelay: Double
    var maxDelay: Double

    package init(_ refresh: Configuration.Refresh) {
        attempts = max(1, refresh.attempts)
        baseDelay = refresh.retryBaseDelaySeconds
        maxDelay = refresh.retryMaxDelaySeconds
    }

    package init(attempts: Int, baseDelay: Double, maxDelay: Double) {
        self.attempts = max(1, attempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The wait before retry number `retry` (1 = the wait after the first failure).
    func delay(beforeRetry retry: Int, random: Double) -> Double {
        let exponential = baseDelay * pow(2, Double(max(0, retry - 1)))
        let capped = min(maxDelay, exponential)
        return capped * (0.5 + 0.5 * min(1, max(0, random)))
    }

    /// Runs `operation` until it succeeds, fails with a non-retryable error, or attempts run out.
    /// Every failure is logged with what happens next.
    package func run<T>(
        log: Log, what: String,
        sleep: (Double) -> Void = { Thread.sleep(forTimeInterval: $0) },
        random: () -> Double = { Double.random(in: 0...1) },
        _ operation: () throws(FetchError) -> T
    ) throws(FetchError) -> T {
        var attempt = 1
        while true {
            do {
                return try operation()
            } catch {
                guard error.isRetryable, attempt < attempts else {
                    log.warning("\(what): attempt \(attempt)/\(attempts) failed, giving up: \(error)")
                    throw error
                }
                let wait = delay(beforeRetry: attempt, random: random())
                log.warning(
                    "\(what): attempt \(attempt)/\(attempts) failed, retrying in \(String(format: "%.1f", wait)) s: \(error)"
                )
                sleep(wait)
                attempt += 1
            }
        }
    }
}
