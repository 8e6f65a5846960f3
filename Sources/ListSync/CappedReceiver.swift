import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A data task that gives up once its body passes a byte limit, as the bytes arrive: the task's
/// own delegate counts each chunk and cancels the transfer, so a server that sends forever costs
/// the device at most `limit` bytes of memory (and a little more on the wire).
final class CappedReceiver: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    struct OverLimit: Error { var limit: Int }

    private let limit: Int
    private let lock = NSLock()
    private var received = Data()
    private var response: URLResponse?
    private var overLimit = false
    private var continuation: CheckedContinuation<(Data, URLResponse), Error>?

    private init(limit: Int) {
        self.limit = limit
    }

    static func fetch(_ request: URLRequest, session: URLSession, limit: Int) async throws -> (Data, URLResponse) {
        let receiver = CappedReceiver(limit: limit)
        return try await withCheckedThrowingContinuation { continuation in
            receiver.continuation = continuation
            let task = session.dataTask(with: request)
            task.delegate = receiver
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        lock.lock()
        self.response = response
        // An announced length over the cap is refused before any body byte is read.
        let tooLong = response.expectedContentLength > Int64(limit)
        if tooLong { overLimit = true }
        lock.unlock()
        completionHandler(tooLong ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        guard !overLimit else {
            lock.unlock()
            return
        }
        if received.count + data.count > limit {
            overLimit = true
            received = Data()
            lock.unlock()
            dataTask.cancel()
            return
        }
        received.append(data)
        lock.unlock()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        lock.lock()
        let continuation = self.continuation
        self.continuation = nil
        let outcome: Result<(Data, URLResponse), Error>
        if overLimit {
            outcome = .failure(OverLimit(limit: limit))
        } else if let error {
            outcome = .failure(error)
        } else if let response {
            outcome = .success((received, response))
        } else {
            outcome = .failure(URLError(.badServerResponse))
        }
        lock.unlock()
        continuation?.resume(with: outcome)
    }
}
