import Foundation

/// The fixed pieces every response is assembled from: status lines, the connection trailer lines,
/// the 404 answer and the connection-limit refusal. Built once per server, shared read-only by
/// all event loops.
final class ResponseParts: @unchecked Sendable {
    /// Indexed by status code (100–599) for a lookup without hashing.
    private let statusLines: [ResponseBytes?]
    /// Ends the head of a persistent HTTP/1.1 response.
    let endKeepAlive = ResponseBytes("\r\n")
    /// Ends the head of a persistent HTTP/1.0 response (RFC 9112 §9.3: 1.0 needs it spelled out).
    let endKeepAlive10 = ResponseBytes("Connection: keep-alive\r\n\r\n")
    let endClose = ResponseBytes("Connection: close\r\n\r\n")
    /// 404 head lines and body; short cache so a file published a moment later is found soon.
    let notFoundHead: ResponseBytes
    let notFoundBody: ResponseBytes
    /// Fields of the answer to `OPTIONS *`: what the server supports, no content.
    let optionsHead = ResponseBytes("Allow: GET, HEAD\r\nContent-Length: 0\r\nCache-Control: no-store\r\n")
    /// The whole answer to a connection over the limit, sent before any request is read. Plain
    /// (no Date, no Server): it is the cheapest thing a full server can still say.
    let connectionLimit: ResponseBytes

    static let reasons: [Int: String] = [
        200: "OK", 202: "Accepted", 206: "Partial Content", 304: "Not Modified", 400: "Bad Request",
        401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable", 408: "Request Timeout",
        411: "Length Required", 412: "Precondition Failed", 413: "Content Too Large", 414: "URI Too Long",
        410: "Gone", 416: "Range Not Satisfiable", 429: "Too Many Requests", 431: "Request Header Fields Too Large",
        500: "Internal Server Error",
        501: "Not Implemented", 503: "Service Unavailable", 505: "HTTP Version Not Supported",
    ]

    init(serverName: String) {
        var lines = [ResponseBytes?](repeating: nil, count: 600)
        for (code, reason) in Self.reasons {
            lines[code] = ResponseBytes("HTTP/1.1 \(code) \(reason)\r\nServer: \(serverName)\r\n")
        }
        statusLines = lines
        let body = Array("{\"error\":\"not found\"}\n".utf8)
        notFoundBody = ResponseBytes(body)
        notFoundHead = ResponseBytes(
            "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nCache-Control: public, max-age=60\r\n")
        let refusal = Self.errorBody("server at connection limit")
        connectionLimit = ResponseBytes(
            Array(
                "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: \(refusal.count)\r\n"
                    .utf8)
                + Array("Cache-Control: no-store\r\nRetry-After: 5\r\nConnection: close\r\n\r\n".utf8) + refusal)
    }

    /// `{"error":"<reason>"}` and a newline, the reason escaped for JSON.
    static func errorBody(_ reason: String) -> [UInt8] {
        let escaped = reason.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return Array("{\"error\":\"\(escaped)\"}\n".utf8)
    }

    func statusLine(_ code: Int) -> ResponseBytes {
        (code >= 0 && code < statusLines.count ? statusLines[code] : nil) ?? statusLines[500]!
    }
}

/// What changes once a second, rebuilt by each event loop when the second turns: the Date line,
/// and the whole keep-alive HTTP/1.1 404 answer as one segment (the most common error, and the
/// one a scanner or a stale client repeats: one iovec instead of five).
final class DatedParts: @unchecked Sendable {
    /// `Date: <IMF-fixdate>\r\n` (RFC 9110 §6.6.1).
    let date: ResponseBytes
    let notFound: ResponseBytes

    init(second: Int, parts: ResponseParts) {
        let dateBytes = Array("Date: ".utf8) + HTTPDate.format(second) + [0x0D, 0x0A]
        date = ResponseBytes(dateBytes)
        var whole: [UInt8] = []
        for piece in [parts.statusLine(404), date, parts.notFoundHead, parts.endKeepAlive, parts.notFoundBody] {
            whole.append(contentsOf: UnsafeBufferPointer(start: piece.base, count: piece.count))
        }
        notFound = ResponseBytes(whole)
    }
}
