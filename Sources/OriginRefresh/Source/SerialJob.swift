import Dispatch
import Foundation

/// One job run at a time on a private queue: on a timer the job itself sets after each run, and on
/// demand (`trigger`). Both set sources (the refresher and the follower) run on it, so their
/// lifecycle (coalescing, stopping, waiting) is written and tested once.
package final class SerialJob: @unchecked Sendable {
    /// Where the job is. `stopping`: `stop()` came while a run was in progress; that run finishes
    /// (every write it makes is atomic) and nothing runs after it.
    package enum State: Equatable, Sendable {
        case idle, running, stopping, stopped
    }

    /// One run. `isStopping` turns true once `stop()` is called, for a run that can give up between
    /// steps; the result is the number of seconds until the next run (nil: none until a trigger).
    package typealias Run = @Sendable (_ isStopping: @escaping @Sendable () -> Bool) -> Double?

    private let queue: DispatchQueue
    private let run: Run
    private let lock = NSLock()
    // Under `lock`.
    private var current = State.idle
    private var triggerQueued = false
    // Touched only on `queue`.
    private var timer: DispatchSourceTimer?

    package init(label: String, run: @escaping Run) {
        queue = DispatchQueue(label: label)
        self.run = run
    }

    package var state: State { locked { current } }

    /// Runs `prelude` on the queue (it returns the seconds until the first run; zero or less: at once).
    package func start(prelude: @escaping @Sendable () -> Double? = { 0 }) {
        queue.async { self.perform(prelude) }
    }

    /// Asks for a run now. A trigger already waiting absorbs this one; a run in progress is
    /// followed by one more. After `stop()`, nothing.
    package func trigger() {
        let queued: Bool = locked {
            guard !triggerQueued, current == .idle || current == .running else { return false }
            triggerQueued = true
            return true
        }
        guard queued else { return }
        queue.async {
            self.locked { self.triggerQueued = false }
            self.perform { self.run(self.isStopping) }
        }
    }

    /// Runs `work` on the queue between runs, never beside one (a change the source applies by
    /// itself, such as an admin edit). The timer stays as it is; after `stop()`, nothing.
    package func submit(_ work: @escaping @Sendable () -> Void) {
        queue.async {
            _ = self.step {
                work()
                return nil
            }
        }
    }

    /// The one stop path: no run starts after this; a run in progress finishes (see `State.stopping`).
    package func stop() {
        locked {
            switch current {
            case .idle: current = .stopped
            case .running: current = .stopping
            case .stopping, .stopped: break
            }
        }
        queue.async {
            self.timer?.cancel()
            self.timer = nil
        }
    }

    /// Waits for work queued so far (a run in progress, a trigger) to finish.
    package func waitUntilIdle() {
        queue.sync {}
    }

    /// Waits at most `seconds` for work queued so far; false when a run is still in progress then.
    package func waitUntilIdle(timeout seconds: Double) -> Bool {
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        return done.wait(timeout: .now() + seconds) == .success
    }

    private var isStopping: @Sendable () -> Bool {
        { [weak self] in self.map { $0.state != .idle && $0.state != .running } ?? true }
    }

    /// On `queue`: one run between the state changes, then the timer for the next; a run due at
    /// once (zero seconds or less) follows in the same turn of the queue, so `waitUntilIdle` covers it.
    private func perform(_ work: () -> Double?) {
        var delay = step(work)
        while let seconds = delay, seconds <= 0 {
            delay = step { run(isStopping) }
        }
        if let seconds = delay { schedule(after: seconds) }
    }

    /// One run; nil when the job was stopped (or was not idle) or the run wants no next one.
    private func step(_ work: () -> Double?) -> Double? {
        let began: Bool = locked {
            guard current == .idle else { return false }
            current = .running
            return true
        }
        guard began else { return nil }
        let delay = work()
        let stopped: Bool = locked {
            current = current == .running ? .idle : .stopped
            return current == .stopped
        }
        return stopped ? nil : delay
    }

    private func schedule(after seconds: Double) {
        timer?.cancel()
        let next = DispatchSource.makeTimerSource(queue: queue)
        next.schedule(deadline: .now() + seconds)
        next.setEventHandler { [weak self] in
            guard let self else { return }
            self.perform { self.run(self.isStopping) }
        }
        next.resume()
        timer = next
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}
