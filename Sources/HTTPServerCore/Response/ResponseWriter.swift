import Foundation

/// What was answered, for counters, the access log and the connection's fate.
public struct HTTPAnswer: Sendable {
    public var status: Int
    public var route: HTTPRoute
    public var bytes: Int
    public var close: Bool
}

/// Appends response segments to a connection's output queue. Static resources use the heads
/// prepared at install time; only dynamic answers, errors and 206 answers format anything per
/// request.
struct ResponseWriter {
    let parts: ResponseParts
    let routes: HTTPRoutes

    /// Per-request inputs that are not part of the head.
    struct Frame {
        let bytes: UnsafeBufferPointer<UInt8>
        let dated: DatedParts
        /// False when the connection must close after this response (client asked, or draining).
        let keepAlive: Bool
        /// The connection's socket (for `HTTPRequest.peerAddress`).
        let socket: Int32

        var date: ResponseBytes { dated.date }
    }

    // MARK: Static resources

    /// Negotiation, preconditions and ranges for one static resource.
    ///
    /// Range policy: ranges apply to the identity representation only (RFC 9110 §14.2 leaves the
    /// choice to the server), so a Range request gets identity unless identity is refused, in which
    /// case the Range is ignored and the full gzip body is sent. A GET with Range is never answered
    /// with `dcz` (RFC 9842): a dictionary-compressed body is useful only whole.
    func serve(
        _ resource: StaticSite.Resource, route: HTTPRoute, head: HTTPRequestHead, frame: Frame,
        into output: inout OutputQueue
    ) -> HTTPAnswer {
        let bytes = frame.bytes
        let wantsRange = head.range != nil && head.method == .get
        var choice = ContentNegotiation.Choice.identity
        var representation = resource.identity
        if !wantsRange, let dictionary = dictionaryRepresentation(resource, head: head, bytes: bytes) {
            representation = dictionary
        } else {
            choice = ContentNegotiation.choose(bytes, header: head.acceptEncoding, gzipAvailable: resource.gzip != nil)
            if choice == .notAcceptable {
                return error(
                    406, "neither identity nor gzip is acceptable", route: route, head: head, frame: frame,
                    extraHeaders: resource.varyLine, into: &output)
            }
            if wantsRange, choice == .gzip,
                ContentNegotiation.choose(bytes, header: head.acceptEncoding, gzipAvailable: false) == .identity
            {
                choice = .identity
            }
            if choice == .gzip { representation = resource.gzip! }
        }
        switch ConditionalRequest.evaluate(
            bytes, head: head, etag: representation.etag, lastModified: resource.lastModified)
        {
        case .preconditionFailed:
            return error(
                412, "precondition failed", route: route, head: head, frame: frame,
                extraHeaders: "ETag: \(String(decoding: representation.etag, as: UTF8.self))\r\n" + resource.varyLine,
                into: &output)
        case .notModified:
            var written = append(parts.statusLine(304), frame.date, representation.head304, frame: frame, into: &output)
            written += end(head: head, frame: frame, into: &output)
            return HTTPAnswer(status: 304, route: route, bytes: written, close: !frame.keepAlive)
        case .proceed:
            break
        }
        if wantsRange, choice == .identity, let rangeValue = head.range {
            let honour =
                head.ifRange.map {
                    ConditionalRequest.ifRangeHolds(
                        bytes, value: $0, etag: resource.identity.etag, lastModified: resource.lastModified)
                } ?? true
            if honour {
                let length = resource.identity.body.count
                switch RangeRequest.evaluate(bytes, value: rangeValue, length: length) {
                case .partial(let range):
                    let extra = ResponseBytes(
                        "Content-Length: \(range.count)\r\nContent-Range: bytes \(range.lowerBound)-\(range.upperBound - 1)/\(length)\r\n"
                    )
                    var written = append(
                        parts.statusLine(206), frame.date, resource.rangeHeadPrefix, extra, frame: frame, into: &output)
                    written += end(head: head, frame: frame, into: &output)
                    if let file = resource.identity.file {
                        output.append(file, range)
                    } else {
                        output.append(resource.identity.body, range)
                    }
                    return HTTPAnswer(status: 206, route: route, bytes: written + range.count, close: !frame.keepAlive)
                case .unsatisfiable:
                    return error(
                        416, "range not satisfiable", route: route, head: head, frame: frame,
                        extraHeaders: "Content-Range: bytes */\(length)\r\n" + resource.varyLine, into: &output)
                case .full:
                    break
                }
            }
        }
        var written = append(parts.statusLine(200), frame.date, representation.head200, frame: frame, into: &output)
        written += end(head: head, frame: frame, into: &output)
        if head.method == .get {
            if let file = representation.file {
                output.append(file, 0..<file.count)
            } else {
                output.append(representation.body)
            }
            written += representation.body.count
        }
        return HTTPAnswer(status: 200, route: route, bytes: written, close: !frame.keepAlive)
    }

    /// RFC 9842: the `dcz` body for the dictionary the request offers, when it also accepts `dcz`.
    private func dictionaryRepresentation(
        _ resource: StaticSite.Resource, head: HTTPRequestHead,
        bytes: UnsafeBufferPointer<UInt8>
    ) -> StaticSite.Representation? {
        guard let offered = head.availableDictionary, !resource.dictionaryVariants.isEmpty,
            let representation = resource.dictionaryVariant(offered: UnsafeBufferPointer(rebasing: bytes[offered])),
            ContentNegotiation.accepts(bytes, header: head.acceptEncoding, coding: "dcz")
        else { return nil }
        return representation
    }

    func notFound(head: HTTPRequestHead, frame: Frame, into output: inout OutputQueue) -> HTTPAnswer {
        if frame.keepAlive, head.version == .http11, head.method != .head {
            output.append(frame.dated.notFound)
            return HTTPAnswer(status: 404, route: routes.notFound, bytes: frame.dated.notFound.count, close: false)
        }
        var written = append(parts.statusLine(404), frame.date, parts.notFoundHead, frame: frame, into: &output)
        written += end(head: head, frame: frame, into: &output)
        if head.method != .head {
            output.append(parts.notFoundBody)
            written += parts.notFoundBody.count
        }
        return HTTPAnswer(status: 404, route: routes.notFound, bytes: written, close: !frame.keepAlive)
    }

    // MARK: Building blocks

    /// A response formatted now: operator endpoints (`no-store`, RFC 9111 §5.2.2.5).
    func dynamic(
        _ status: Int, route: HTTPRoute, contentType: String, body: [UInt8], head: HTTPRequestHead, frame: Frame,
        extraHeaders: String = "", into output: inout OutputQueue
    ) -> HTTPAnswer {
        let fields = ResponseBytes(
            "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nCache-Control: no-store\r\n"
                + extraHeaders)
        var written = append(parts.statusLine(status), frame.date, fields, frame: frame, into: &output)
        written += end(head: head, frame: frame, into: &output)
        if head.method != .head {
            output.append(ResponseBytes(body))
            written += body.count
        }
        return HTTPAnswer(status: status, route: route, bytes: written, close: !frame.keepAlive)
    }

    /// A small JSON error. `close` forces `Connection: close` (after a framing error the rest of the
    /// byte stream cannot be trusted, RFC 9112 §11.2).
    func error(
        _ status: Int, _ reason: String, route: HTTPRoute, head: HTTPRequestHead?, frame: Frame,
        extraHeaders: String = "", close: Bool = false, into output: inout OutputQueue
    ) -> HTTPAnswer {
        let body = ResponseParts.errorBody(reason)
        let fields = ResponseBytes(
            "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nCache-Control: no-store\r\n"
                + extraHeaders)
        var written = append(parts.statusLine(status), frame.date, fields, frame: frame, into: &output)
        let closing = close || !frame.keepAlive
        let ending = closing ? parts.endClose : endSegment(head: head, frame: frame)
        output.append(ending)
        written += ending.count
        if head?.method != .head {
            output.append(ResponseBytes(body))
            written += body.count
        }
        return HTTPAnswer(status: status, route: route, bytes: written, close: closing)
    }

    func append(
        _ first: ResponseBytes, _ second: ResponseBytes, _ third: ResponseBytes, frame: Frame,
        into output: inout OutputQueue
    ) -> Int {
        output.append(first)
        output.append(second)
        output.append(third)
        return first.count + second.count + third.count
    }

    private func append(
        _ first: ResponseBytes, _ second: ResponseBytes, _ third: ResponseBytes, _ fourth: ResponseBytes, frame: Frame,
        into output: inout OutputQueue
    ) -> Int {
        append(first, second, third, frame: frame, into: &output) + append(fourth, into: &output)
    }

    private func append(_ piece: ResponseBytes, into output: inout OutputQueue) -> Int {
        output.append(piece)
        return piece.count
    }

    func end(head: HTTPRequestHead, frame: Frame, into output: inout OutputQueue) -> Int {
        let ending = endSegment(head: head, frame: frame)
        output.append(ending)
        return ending.count
    }

    private func endSegment(head: HTTPRequestHead?, frame: Frame) -> ResponseBytes {
        guard frame.keepAlive else { return parts.endClose }
        return head?.version == .http10 ? parts.endKeepAlive10 : parts.endKeepAlive
    }
}

extension ResponseWriter {
    /// At the connection limit, before any request is read: the 503 prepared in `ResponseParts`.
    func connectionLimitRefusal(into output: inout OutputQueue) -> HTTPAnswer {
        output.append(parts.connectionLimit)
        return HTTPAnswer(status: 503, route: routes.invalid, bytes: parts.connectionLimit.count, close: true)
    }
}
