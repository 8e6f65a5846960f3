/// Parses heads and answers them: what the library answers itself (`OPTIONS *`, targets that
/// cannot name anything), then the application's responder. Shared read-only by every
/// connection of the server; a class so passing it around costs one reference.
final class RequestHandler: @unchecked Sendable {
    let parser: HTTPRequestParser
    let writer: ResponseWriter
    let responder: any HTTPResponder
    let sites: SiteSlot

    init(parser: HTTPRequestParser, writer: ResponseWriter, responder: any HTTPResponder, sites: SiteSlot) {
        self.parser = parser
        self.writer = writer
        self.responder = responder
        self.sites = sites
    }

    func answer(_ head: HTTPRequestHead, frame: ResponseWriter.Frame, into output: inout OutputQueue) -> HTTPAnswer {
        let routes = writer.routes
        if head.target.count == 1, frame.bytes[head.target.lowerBound] == 0x2A {
            // asterisk-form is only for a server-wide OPTIONS (RFC 9112 §3.2.4).
            guard head.method == .options else {
                return writer.error(
                    400, "the * request target is only for OPTIONS", route: routes.invalid, head: head, frame: frame,
                    close: true, into: &output)
            }
            let parts = writer.parts
            var written = writer.append(
                parts.statusLine(200), frame.date, parts.optionsHead, frame: frame, into: &output)
            written += writer.end(head: head, frame: frame, into: &output)
            return HTTPAnswer(status: 200, route: routes.options, bytes: written, close: !frame.keepAlive)
        }
        let request = HTTPRequest(head: head, bytes: frame.bytes, site: sites.current, frame: frame, writer: writer)
        if let plain = RequestTarget.plainName(frame.bytes, target: head.target) {
            return responder.respond(
                to: request, name: UnsafeBufferPointer(rebasing: frame.bytes[plain]), into: &output)
        }
        let path = RequestTarget.path(frame.bytes, target: head.target)
        guard case .name(let name) = path else {
            if path == .malformed {
                return writer.error(
                    400, "malformed request target", route: routes.invalid, head: head, frame: frame, close: true,
                    into: &output)
            }
            return writer.notFound(head: head, frame: frame, into: &output)
        }
        return name.withUnsafeBufferPointer { responder.respond(to: request, name: $0, into: &output) }
    }
}
