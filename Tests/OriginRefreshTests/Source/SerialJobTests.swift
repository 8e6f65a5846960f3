import Dispatch
import Foundation
import TestSupport
import Testing

@testable import OriginRefresh

/// The one serial job both set sources run on: its state machine, trigger coalescing and the one
/// stop path, driven with runs that block until the test lets them go.
@Suite struct SerialJobTests {
    /// A run that counts itself and, the first time, waits for `release`.
    final class BlockingRun: @unchecked Sendable {
        let release = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var runs = 0
        private var stoppingSeen: [Bool] = []

        var count: Int {
            lock.lock()
            defer { lock.unlock() }
            return runs
        }
        var sawStopping: [Bool] {
            lock.lock()
            defer { lock.unlock() }
            return stoppingSeen
        }

        func run(_ isStopping: @Sendable () -> Bool, next: Double?) -> Double? {
            lock.lock()
            runs += 1
            let first = runs == 1
            lock.unlock()
            if first {
                entered.signal()
                release.wait()
            }
            lock.lock()
            stoppingSeen.append(isStopping())
            lock.unlock()
            return next
        }
    }

    /// A job whose first run (from a trigger) is in progress and blocked.
    static func jobBlockedInItsFirstRun(_ blocking: BlockingRun) -> SerialJob {
        let job = SerialJob(label: "test.serial") { blocking.run($0, next: nil) }
        job.start { nil }
        job.waitUntilIdle()
        #expect(job.state == .idle)
        job.trigger()
        #expect(blocking.entered.wait(timeout: .now() + 10) == .success)
        #expect(job.state == .running)
        return job
    }

    @Test func triggersDuringARunCollapseIntoOneFollowUp() {
        let blocking = BlockingRun()
        let job = Self.jobBlockedInItsFirstRun(blocking)
        for _ in 0..<5 { job.trigger() }
        blocking.release.signal()
        job.waitUntilIdle()
        job.waitUntilIdle()
        #expect(blocking.count == 2, "one run, then one follow-up for the five triggers")
        #expect(job.state == .idle)
        job.trigger()
        job.waitUntilIdle()
        #expect(blocking.count == 3, "an idle job runs a trigger at once")
        job.stop()
    }

    @Test func stopWhileRunningLetsTheRunFinishAndRunsNothingAfter() {
        let blocking = BlockingRun()
        let job = Self.jobBlockedInItsFirstRun(blocking)
        job.trigger()
        job.stop()
        #expect(job.state == .stopping)
        blocking.release.signal()
        #expect(job.waitUntilIdle(timeout: 10))
        #expect(job.state == .stopped)
        #expect(blocking.sawStopping == [true], "the run sees the stop, and the queued trigger does not run")
        job.trigger()
        job.waitUntilIdle()
        #expect(blocking.count == 1)
    }

    @Test func stopWhileIdleCancelsTheScheduledRun() {
        let ran = DispatchSemaphore(value: 0)
        let scheduled = SerialJob(label: "test.serial") { _ in
            ran.signal()
            return nil
        }
        scheduled.start { 0.05 }
        #expect(ran.wait(timeout: .now() + 10) == .success, "without a stop, the timer runs the job")

        let stopped = SerialJob(label: "test.serial") { _ in
            ran.signal()
            return nil
        }
        stopped.start { 0.05 }
        stopped.waitUntilIdle()
        stopped.stop()
        #expect(stopped.state == .stopped)
        stopped.trigger()
        #expect(ran.wait(timeout: .now() + 0.5) == .timedOut, "neither the timer nor a trigger runs a stopped job")
        #expect(stopped.state == .stopped)
    }

    @Test func aRunDueAtOnceFollowsTheStartInTheSameTurn() {
        let blocking = BlockingRun()
        blocking.release.signal()
        let job = SerialJob(label: "test.serial") { blocking.run($0, next: nil) }
        job.start { 0 }
        job.waitUntilIdle()
        #expect(blocking.count == 1, "waitUntilIdle covers a first run due at once")
        job.stop()
    }
}
