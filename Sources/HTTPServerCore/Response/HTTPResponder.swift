/// The application's half of the server. The library answers what needs no application
/// (framing errors, `OPTIONS *`, targets that cannot name anything); every request whose target
/// decodes to a name comes here, and the responder answers it through `HTTPRequest`'s builders.
public protocol HTTPResponder: Sendable {
    /// Answers a request for `name`: the decoded path without its leading slash, e.g. `healthz`.
    func respond(to request: HTTPRequest, name: UnsafeBufferPointer<UInt8>, into output: inout OutputQueue)
        -> HTTPAnswer
}

/// What a request is counted under in the server's counters; an index into `HTTPRoutes.labels`.
public struct HTTPRoute: Hashable, Sendable {
    public let index: Int

    public init(_ index: Int) {
        self.index = index
    }
}

/// Route labels: the application's own, in its order, then the three the library answers itself.
public struct HTTPRoutes: Sendable {
    public let labels: [String]

    public init(applicationLabels: [String]) {
        labels = applicationLabels + ["not_found", "invalid", "options"]
    }

    /// A target that names nothing (404).
    public var notFound: HTTPRoute { HTTPRoute(labels.count - 3) }
    /// A request refused as malformed or not allowed (4xx/5xx before any resource is chosen).
    public var invalid: HTTPRoute { HTTPRoute(labels.count - 2) }
    /// `OPTIONS *`.
    public var options: HTTPRoute { HTTPRoute(labels.count - 1) }
}

/// One parsed request as the responder sees it, with the builders that append its answer.
/// Only valid during `respond`: it points into the connection's input bytes.
public struct HTTPRequest {
    public let head: HTTPRequestHead
    /// The bytes the head was parsed from; the head's ranges index into them.
    public let bytes: UnsafeBufferPointer<UInt8>
    /// The generation this request is answered from (one per request, never mixed).
    public let site: StaticSite
    let frame: ResponseWriter.Frame
    let writer: ResponseWriter

    public var routes: HTTPRoutes { writer.routes }

    /// The client's IP address (no port), asked of the socket only when called: for limits on
    /// endpoints that check a secret. "-" when the socket has no peer any more.
    public var peerAddress: String {
        let name = EventLoop.peerName(frame.socket)
        guard let colon = name.lastIndex(of: ":") else { return name }
        return String(name[..<colon])
    }

    /// The bytes of a header value range from `head`.
    public func value(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[range])
    }

    /// A static resource with negotiation, preconditions and ranges, from its prepared heads.
    public func serve(_ resource: StaticSite.Resource, route: HTTPRoute, into output: inout OutputQueue) -> HTTPAnswer {
        writer.serve(resource, route: route, head: head, frame: frame, into: &output)
    }

    /// A body formatted now, `Cache-Control: no-store` (RFC 9111 §5.2.2.5), plus `fields`.
    public func respond(
        status: Int, route: HTTPRoute, contentType: String, body: [UInt8], fields: [HTTPField] = [],
        into output: inout OutputQueue
    ) -> HTTPAnswer {
        writer.dynamic(
            status, route: route, contentType: contentType, body: body, head: head, frame: frame,
            extraHeaders: fields.headLines,
            into: &output)
    }

    /// A small JSON error, plus `fields`.
    public func error(
        _ status: Int, _ reason: String, route: HTTPRoute, fields: [HTTPField] = [], into output: inout OutputQueue
    ) -> HTTPAnswer {
        writer.error(
            status, reason, route: route, head: head, frame: frame, extraHeaders: fields.headLines, into: &output)
    }

    /// The shared 404, counted under `routes.notFound`.
    public func notFound(into output: inout OutputQueue) -> HTTPAnswer {
        writer.notFound(head: head, frame: frame, into: &output)
    }
}
