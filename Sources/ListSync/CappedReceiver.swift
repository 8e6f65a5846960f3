import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(CCurlShim)
import CCurlShim
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
        #if canImport(CCurlShim)
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

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
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

#if canImport(CCurlShim)
/// One GET through libcurl with a body cap enforced in the write callback (Linux).
enum CurlCappedGet {
    private final class Sink {
        let limit: Int
        var body = Data()
        var headerLines: [String] = []
        var overLimit = false
        init(limit: Int) { self.limit = limit }
    }

    static func fetch(_ request: URLRequest, limit: Int) async throws -> (Data, URLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result { try perform(request, limit: limit) })
            }
        }
    }

    private static func perform(_ request: URLRequest, limit: Int) throws -> (Data, URLResponse) {
        guard let url = request.url, let handle = curl_easy_init() else { throw URLError(.badURL) }
        defer { curl_easy_cleanup(handle) }
        let sink = Sink(limit: limit)
        var headers: UnsafeMutablePointer<curl_slist>?
        for (name, value) in request.allHTTPHeaderFields ?? [:] where name.lowercased() != "accept-encoding" {
            headers = curl_slist_append(headers, "\(name): \(value)")
        }
        defer { curl_slist_free_all(headers) }
        let code: CURLcode = withExtendedLifetime(sink) {
            let context = Unmanaged.passUnretained(sink).toOpaque()
            shim_curl_setopt_string(handle, CURLOPT_URL, url.absoluteString)
            shim_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
            shim_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
            shim_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(request.timeoutInterval * 1000))
            // libcurl inflates gzip itself, so the cap counts decoded bytes (a gzip bomb stops too).
            shim_curl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "gzip")
            // An announced Content-Length over the cap is refused before any body byte.
            shim_curl_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limit))
            if let headers { shim_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headers) }
            shim_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
            shim_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
            shim_curl_setopt_write_callback(handle) { data, size, count, userdata in
                let sink = Unmanaged<Sink>.fromOpaque(userdata!).takeUnretainedValue()
                let bytes = size * count
                guard sink.body.count + bytes <= sink.limit else {
                    sink.overLimit = true
                    return 0   // CURLE_WRITE_ERROR: libcurl stops reading now
                }
                if let data { sink.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: bytes) }
                return bytes
            }
            shim_curl_setopt_header_callback(handle) { data, size, count, userdata in
                let sink = Unmanaged<Sink>.fromOpaque(userdata!).takeUnretainedValue()
                let bytes = size * count
                if let data {
                    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: bytes), as: UTF8.self)
                    if line.hasPrefix("HTTP/") { sink.headerLines.removeAll() } else { sink.headerLines.append(line) }
                }
                return bytes
            }
            return curl_easy_perform(handle)
        }
        if sink.overLimit || code == CURLE_FILESIZE_EXCEEDED { throw CappedReceiver.OverLimit(limit: limit) }
        guard code == CURLE_OK else {
            throw URLError(.networkConnectionLost, userInfo: [NSLocalizedDescriptionKey: String(cString: curl_easy_strerror(code))])
        }
        var status = 0
        shim_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var fields: [String: String] = [:]
        for line in sink.headerLines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields) else {
            throw URLError(.badServerResponse)
        }
        return (sink.body, response)
    }
}
#endif
