import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP GET through URLSession, with the few facts the sync needs: status, headers, the
/// decoded body and how many body bytes crossed the network.
struct HTTPFetcher: Sendable {
    struct Response: Sendable {
        var status: Int
        /// Header names lowercased.
        var headers: [String: String]
        /// The body after content decoding (URLSession inflates gzip itself).
        var body: Data
        /// Body bytes on the wire: the announced Content-Length of an encoded response,
        /// else the body's own length.
        var transferredBytes: Int
    }

    let session: URLSession
    let timeout: TimeInterval

    /// - Parameter limit: the most body bytes (after decoding) to accept. Reading stops as soon as
    ///   the announced length or the bytes received pass it, and `SyncError.bodyTooLarge` is thrown:
    ///   an endless or oversized body never sits in memory whole. nil: no cap (list files, whose
    ///   hash the manifest fixes).
    func get(_ url: URL, headers: [String: String], limit: Int? = nil) async throws -> Response {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "GET"
        // RFC 9110 §12.5.3: offer gzip; the origin sends its precompressed sibling.
        request.setValue("gzip", forHTTPHeaderField: "Accept-Encoding")
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        let (data, response): (Data, URLResponse)
        do {
            if let limit {
                (data, response) = try await CappedReceiver.fetch(request, session: session, limit: limit)
            } else {
                (data, response) = try await withCheckedThrowingContinuation { continuation in
                    let task = session.dataTask(with: request) { data, response, error in
                        if let error {
                            continuation.resume(throwing: error)
                        } else if let response {
                            continuation.resume(returning: (data ?? Data(), response))
                        } else {
                            continuation.resume(throwing: URLError(.badServerResponse))
                        }
                    }
                    task.resume()
                }
            }
        } catch let error as CappedReceiver.OverLimit {
            throw SyncError.bodyTooLarge(url: url.absoluteString, limit: error.limit)
        } catch {
            throw SyncError.transport(url: url.absoluteString, reason: Self.describe(error))
        }
        guard let http = response as? HTTPURLResponse else {
            throw SyncError.transport(url: url.absoluteString, reason: "not an HTTP response")
        }
        var lowered: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String {
                lowered[key.lowercased()] = value
            }
        }
        var transferred = data.count
        if let encoding = lowered["content-encoding"], encoding.lowercased() != "identity",
            let length = lowered["content-length"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
        {
            transferred = length
        }
        return Response(status: http.statusCode, headers: lowered, body: data, transferredBytes: transferred)
    }

    private static func describe(_ error: Error) -> String {
        if let urlError = error as? URLError {
            return "\(urlError.localizedDescription) (URLError \(urlError.code.rawValue))"
        }
        return "\(error)"
    }
}
