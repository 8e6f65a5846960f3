import Foundation
import ListSync

/// Runs async work from a synchronous command entry point and waits for its result.
enum BlockingTask {
    static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Result<T, Error> {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { box.result = .success(try await work()) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return box.result ?? .failure(SyncError.transport(url: "", reason: "did not finish"))
    }

    /// Carries the result across the semaphore; written once before `signal`, read after `wait`.
    private final class ResultBox<T>: @unchecked Sendable {
        var result: Result<T, Error>?
    }
}
