import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(CappedHTTPClient)
    import CappedHTTPClient
#endif

/// A data task that gives up once its body passes a byte limit, as the bytes arrive: the
/// delegate counts each chunk and cancels the transfer, so a server that sends forever costs
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
        #if canImport(CappedHTTPClient)
            // swift-corelibs-foundation's cancel() does not stop the transfer underneath (it went on
            // reading hundreds of MB here), so on Linux libcurl does it: its write callback refuses
            // the byte past the cap and the transfer ends at once.
            return try await CurlCappedGet.fetch(request, limit: limit)
        #else
            let receiver = CappedReceiver(limit: limit)
            // A session of its own whose delegate is the receiver (swift-corelibs-foundation does not
            // call per-task delegates), with the caller's configuration; invalidated when done.
            let capped = URLSession(configuration: session.configuration, delegate: receiver, delegateQueue: nil)
            defer { capped.finishTasksAndInvalidate() }
            return try await withCheckedThrowingContinuation { continuation in
                receiver.continuation = continuation
                capped.dataTask(with: request).resume()
            }
        #endif
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        lock.lock()
        self.response = response
        // An announced length over the cap is refused before any body byte is read.
        let tooLong = response.expectedContentLength > Int64(limit)
        if tooLong { overLimit = true }
        lock.unlock()
        if tooLong { dataTask.cancel() }
        completionHandler(tooLong ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        guard !overLimit else {
            lock.unlock()
            dataTask.cancel()
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

#if canImport(CappedHTTPClient)
    /// One GET through the shared capped libcurl client (Linux): the cap is enforced in its write
    /// callback, and redirects follow its one policy (at most five, never from HTTPS to HTTP), as
    /// URLSession's would for the uncapped list files.
    enum CurlCappedGet {
        static func fetch(_ request: URLRequest, limit: Int) async throws -> (Data, URLResponse) {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global(qos: .utility).async {
                    continuation.resume(with: Result { try perform(request, limit: limit) })
                }
            }
        }

        private static func perform(_ request: URLRequest, limit: Int) throws -> (Data, URLResponse) {
            guard let url = request.url else { throw URLError(.badURL) }
            // The client offers gzip itself and inflates it, so the cap counts decoded bytes.
            let headers = (request.allHTTPHeaderFields ?? [:]).filter { $0.key.lowercased() != "accept-encoding" }.map {
                "\($0.key): \($0.value)"
            }
            let capped = CappedHTTPClient.Request(
                url: url.absoluteString, headers: headers, maxBodyBytes: limit,
                totalTimeoutSeconds: request.timeoutInterval)
            let answer: CappedHTTPClient.Response
            do {
                answer = try CappedHTTPClient().get(capped)
            } catch {
                if case .tooLarge = error { throw CappedReceiver.OverLimit(limit: limit) }
                throw error
            }
            var fields: [String: String] = [:]
            for (name, value) in answer.headers { fields[name] = value }
            guard
                let response = HTTPURLResponse(
                    url: url, statusCode: answer.status, httpVersion: "HTTP/1.1", headerFields: fields)
            else {
                throw URLError(.badServerResponse)
            }
            return (Data(answer.body), response)
        }
    }
#endif
