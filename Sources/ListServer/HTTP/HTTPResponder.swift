import CNIOShim
import Foundation

/// Maps one parsed request to response segments appended to a connection's output queue.
/// Static resources use the heads prepared at install time; only operator endpoints, errors and
/// 206 answers format anything per request.
struct HTTPResponder {
    let context: ServerContext

    /// What was answered, for counters, the access log and the connection's fate.
    struct Answer {
        var status: Int
        var route: ServerMetrics.Route
        var bytes: Int
        var close: Bool
    }

    /// Per-request inputs that are not part of the head.
    struct Frame {
        let bytes: UnsafeBufferPointer<UInt8>
        let dated: DatedParts
        /// False when the connection must close after this response (client asked, or draining).
        let keepAlive: Bool

        var date: ResponseBytes { dated.date }
    }

    func respond(to head: HTTPRequestHead, frame: Frame, site: PreparedSite, into output: inout OutputQueue) -> Answer {
        if head.target.count == 1, frame.bytes[head.target.lowerBound] == 0x2A {
            // asterisk-form is only for a server-wide OPTIONS (RFC 9112 §3.2.4).
            guard head.method == .options else {
                return error(400, "the * request target is only for OPTIONS", route: .invalid, head: head, frame: frame, close: true, into: &output)
            }
            var written = append(context.parts.statusLine(200), frame.date, context.parts.optionsHead, frame: frame, into: &output)
            written += end(head: head, frame: frame, into: &output)
            return Answer(status: 200, route: .options, bytes: written, close: !frame.keepAlive)
        }
        if let plain = RequestTarget.plainName(frame.bytes, target: head.target) {
            return route(UnsafeBufferPointer(rebasing: frame.bytes[plain]), head: head, frame: frame, site: site, into: &output)
        }
        let path = RequestTarget.path(frame.bytes, target: head.target)
        guard case .name(let name) = path else {
            if path == .malformed {
                return error(400, "malformed request target", route: .invalid, head: head, frame: frame, close: true, into: &output)
            }
            return notFound(head: head, frame: frame, into: &output)
        }
        return name.withUnsafeBufferPointer { route($0, head: head, frame: frame, site: site, into: &output) }
    }

    /// Answers a request for the decoded path `name` (without its leading slash).
    private func route(_ name: UnsafeBufferPointer<UInt8>, head: HTTPRequestHead, frame: Frame, site: PreparedSite, into output: inout OutputQueue) -> Answer {
        if Self.equals(name, "admin/refresh") {
            // Without a configured token the endpoint does not exist (404 for every method).
            return adminRefresh(head: head, frame: frame, into: &output)
        }
        guard head.method == .get || head.method == .head else {
            return error(405, "method not allowed", route: .invalid, head: head, frame: frame, extraHeaders: "Allow: GET, HEAD\r\n", into: &output)
        }
        if Self.equals(name, "manifest.json") {
            guard let manifest = site.manifest else { return notFound(head: head, frame: frame, into: &output) }
            return serve(manifest, route: .manifest, head: head, frame: frame, into: &output)
        }
        if let resource = site.table.lookup(name) {
            return serve(resource, route: .list, head: head, frame: frame, into: &output)
        }
        if Self.equals(name, "healthz") {
            let healthy = site.manifest != nil
            let body = Array((healthy ? "{\"status\":\"ok\"}\n" : "{\"status\":\"no manifest installed\"}\n").utf8)
            return dynamic(healthy ? 200 : 503, route: .healthz, contentType: "application/json", body: body, head: head, frame: frame, into: &output)
        }
        if Self.equals(name, "status") {
            let body = StatusDocument(status: context.status.current, activity: context.activity()).encoded()
            return dynamic(200, route: .status, contentType: "application/json", body: body, head: head, frame: frame, into: &output)
        }
        if Self.equals(name, "metrics") {
            let body = MetricsRenderer(status: context.status.current, activity: context.activity()).render()
            return dynamic(200, route: .metrics, contentType: "text/plain; version=0.0.4; charset=utf-8", body: body, head: head, frame: frame, into: &output)
        }
        return notFound(head: head, frame: frame, into: &output)
    }

    /// Exact, case-sensitive comparison of request bytes with a literal (no String built).
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        return bytes.isEmpty || memcmp(bytes.baseAddress!, literal.utf8Start, bytes.count) == 0
    }

    // MARK: Static resources

    /// Negotiation, preconditions and ranges for a hashed file or the manifest.
    ///
    /// Range policy: ranges apply to the identity representation only (RFC 9110 §14.2 leaves the
    /// choice to the server), so a Range request gets identity unless identity is refused, in which
    /// case the Range is ignored and the full gzip body is sent.
    private func serve(_ resource: PreparedSite.Resource, route: ServerMetrics.Route, head: HTTPRequestHead, frame: Frame, into output: inout OutputQueue) -> Answer {
        let bytes = frame.bytes
        var choice = ContentNegotiation.choose(bytes, header: head.acceptEncoding, gzipAvailable: resource.gzip != nil)
        if choice == .notAcceptable {
            return error(406, "neither identity nor gzip is acceptable", route: route, head: head, frame: frame,
                         extraHeaders: "Vary: Accept-Encoding\r\n", into: &output)
        }
        let wantsRange = head.range != nil && head.method == .get
        if wantsRange, choice == .gzip,
           ContentNegotiation.choose(bytes, header: head.acceptEncoding, gzipAvailable: false) == .identity {
            choice = .identity
        }
        let representation = choice == .gzip ? resource.gzip! : resource.identity
        switch ConditionalRequest.evaluate(bytes, head: head, etag: representation.etag, lastModified: resource.lastModified) {
        case .preconditionFailed:
            return error(412, "precondition failed", route: route, head: head, frame: frame,
                         extraHeaders: "ETag: \(String(decoding: representation.etag, as: UTF8.self))\r\nVary: Accept-Encoding\r\n", into: &output)
        case .notModified:
            var written = append(context.parts.statusLine(304), frame.date, representation.head304, frame: frame, into: &output)
            written += end(head: head, frame: frame, into: &output)
            return Answer(status: 304, route: route, bytes: written, close: !frame.keepAlive)
        case .proceed:
            break
        }
        if wantsRange, choice == .identity, let rangeValue = head.range {
            let honour = head.ifRange.map {
                ConditionalRequest.ifRangeHolds(bytes, value: $0, etag: resource.identity.etag, lastModified: resource.lastModified)
            } ?? true
            if honour {
                let length = resource.identity.body.count
                switch RangeRequest.evaluate(bytes, value: rangeValue, length: length) {
                case .partial(let range):
                    let extra = ResponseBytes("Content-Length: \(range.count)\r\nContent-Range: bytes \(range.lowerBound)-\(range.upperBound - 1)/\(length)\r\n")
                    var written = append(context.parts.statusLine(206), frame.date, resource.rangeHeadPrefix, extra, frame: frame, into: &output)
                    written += end(head: head, frame: frame, into: &output)
                    if let file = resource.identity.file {
                        output.append(file, range)
                    } else {
                        output.append(resource.identity.body, range)
                    }
                    return Answer(status: 206, route: route, bytes: written + range.count, close: !frame.keepAlive)
                case .unsatisfiable:
                    return error(416, "range not satisfiable", route: route, head: head, frame: frame,
                                 extraHeaders: "Content-Range: bytes */\(length)\r\nVary: Accept-Encoding\r\n", into: &output)
                case .full:
                    break
                }
            }
        }
        var written = append(context.parts.statusLine(200), frame.date, representation.head200, frame: frame, into: &output)
        written += end(head: head, frame: frame, into: &output)
        if head.method == .get {
            if let file = representation.file {
                output.append(file, 0..<file.count)
            } else {
                output.append(representation.body)
            }
            written += representation.body.count
        }
        return Answer(status: 200, route: route, bytes: written, close: !frame.keepAlive)
    }

    private func notFound(head: HTTPRequestHead, frame: Frame, into output: inout OutputQueue) -> Answer {
        if frame.keepAlive, head.version == .http11, head.method != .head {
            output.append(frame.dated.notFound)
            return Answer(status: 404, route: .notFound, bytes: frame.dated.notFound.count, close: false)
        }
        var written = append(context.parts.statusLine(404), frame.date, context.parts.notFoundHead, frame: frame, into: &output)
        written += end(head: head, frame: frame, into: &output)
        if head.method != .head {
            output.append(context.parts.notFoundBody)
            written += context.parts.notFoundBody.count
        }
        return Answer(status: 404, route: .notFound, bytes: written, close: !frame.keepAlive)
    }

    // MARK: Admin

    /// `POST /admin/refresh` with `Authorization: Bearer <token>` (RFC 6750 §2.1), compared in
    /// constant time so response timing leaks nothing about the token.
    private func adminRefresh(head: HTTPRequestHead, frame: Frame, into output: inout OutputQueue) -> Answer {
        guard let admin = context.admin else { return notFound(head: head, frame: frame, into: &output) }
        guard head.method == .post else {
            return error(405, "use POST", route: .admin, head: head, frame: frame, extraHeaders: "Allow: POST\r\n", into: &output)
        }
        guard let value = head.authorization, authorized(UnsafeBufferPointer(rebasing: frame.bytes[value]), token: admin.token) else {
            return error(401, "bearer token required", route: .admin, head: head, frame: frame,
                         extraHeaders: "WWW-Authenticate: Bearer realm=\"listserver\"\r\n", into: &output)
        }
        admin.onRefresh()
        return dynamic(202, route: .admin, contentType: "application/json", body: Array("{\"refresh\":\"accepted\"}\n".utf8),
                       head: head, frame: frame, into: &output)
    }

    private func authorized(_ field: UnsafeBufferPointer<UInt8>, token: [UInt8]) -> Bool {
        guard field.count > 7, HTTPBytes.equalsLowercase(UnsafeBufferPointer(rebasing: field[0..<7]), "bearer ") else { return false }
        var start = 7
        while start < field.count, field[start] == 0x20 { start += 1 }
        let presented = UnsafeBufferPointer(rebasing: field[start...])
        return token.withUnsafeBufferPointer { expected in
            shim_constant_time_equal(presented.baseAddress, presented.count, expected.baseAddress, expected.count) == 1
        }
    }

    // MARK: Building blocks

    /// A response formatted now: operator endpoints (`no-store`, RFC 9111 §5.2.2.5).
    private func dynamic(_ status: Int, route: ServerMetrics.Route, contentType: String, body: [UInt8], head: HTTPRequestHead, frame: Frame, into output: inout OutputQueue) -> Answer {
        let fields = ResponseBytes("Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nCache-Control: no-store\r\n")
        var written = append(context.parts.statusLine(status), frame.date, fields, frame: frame, into: &output)
        written += end(head: head, frame: frame, into: &output)
        if head.method != .head {
            output.append(ResponseBytes(body))
            written += body.count
        }
        return Answer(status: status, route: route, bytes: written, close: !frame.keepAlive)
    }

    /// A small JSON error. `close` forces `Connection: close` (after a framing error the rest of the
    /// byte stream cannot be trusted, RFC 9112 §11.2).
    func error(
        _ status: Int, _ reason: String, route: ServerMetrics.Route, head: HTTPRequestHead?, frame: Frame,
        extraHeaders: String = "", close: Bool = false, into output: inout OutputQueue
    ) -> Answer {
        let escaped = reason.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        let body = Array("{\"error\":\"\(escaped)\"}\n".utf8)
        let fields = ResponseBytes("Content-Type: application/json\r\nContent-Length: \(body.count)\r\nCache-Control: no-store\r\n" + extraHeaders)
        var written = append(context.parts.statusLine(status), frame.date, fields, frame: frame, into: &output)
        let closing = close || !frame.keepAlive
        let ending = closing ? context.parts.endClose : endSegment(head: head, frame: frame)
        output.append(ending)
        written += ending.count
        if head?.method != .head {
            output.append(ResponseBytes(body))
            written += body.count
        }
        return Answer(status: status, route: route, bytes: written, close: closing)
    }

    private func append(_ first: ResponseBytes, _ second: ResponseBytes, _ third: ResponseBytes, frame: Frame, into output: inout OutputQueue) -> Int {
        output.append(first)
        output.append(second)
        output.append(third)
        return first.count + second.count + third.count
    }

    private func append(
        _ first: ResponseBytes, _ second: ResponseBytes, _ third: ResponseBytes, _ fourth: ResponseBytes, frame: Frame, into output: inout OutputQueue
    ) -> Int {
        append(first, second, third, frame: frame, into: &output) + append(fourth, into: &output)
    }

    private func append(_ piece: ResponseBytes, into output: inout OutputQueue) -> Int {
        output.append(piece)
        return piece.count
    }

    private func end(head: HTTPRequestHead, frame: Frame, into output: inout OutputQueue) -> Int {
        let ending = endSegment(head: head, frame: frame)
        output.append(ending)
        return ending.count
    }

    private func endSegment(head: HTTPRequestHead?, frame: Frame) -> ResponseBytes {
        guard frame.keepAlive else { return context.parts.endClose }
        return head?.version == .http10 ? context.parts.endKeepAlive10 : context.parts.endKeepAlive
    }
}
