import ContentBlockerEngine
import Foundation
import HTTPServerCore

/// `GET /explain?url=…&page=…&type=…`: the decision of the installed set for one request, as the
/// JSON `listserver explain --json` prints (the same renderer), or a small HTML page when the
/// client prefers HTML (the status page's form). For operators only: without an admin token
/// configured it does not exist (404, like `/admin/refresh`), with one it asks for the token
/// (`TokenGate`, which refuses a client that fails too often). Bad input is refused before
/// anything is loaded; the engine loads lazily (`ExplainEngineCache`).
package struct ExplainEndpoint {
    /// Strict: no script, no external anything; only the page's own inline style.
    static let htmlPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    static let challenges: [HTTPField] = [
        .wwwAuthenticate("Bearer realm=\"listserver\""),
        .wwwAuthenticate("Basic realm=\"listserver\", charset=\"UTF-8\""),
    ]

    let cache: ExplainEngineCache
    package let admin: AdminCredential?
    let limiter: AuthFailureLimiter
    let route: HTTPRoute

    package func respond(_ request: HTTPRequest, into output: inout OutputQueue) -> HTTPAnswer {
        guard let admin else { return request.notFound(into: &output) }
        if let refusal = TokenGate(admin: admin, limiter: limiter).refusal(
            request, allowingBasic: true, route: route,
            reason: "the admin token is required: Authorization: Bearer <token>, or Basic with the token as password",
            challenges: Self.challenges, into: &output)
        {
            return refusal
        }
        let blockerRequest: BlockerRequest
        let set: String?
        do {
            let query = try ExplainQuery.parse(target: request.value(request.head.target))
            blockerRequest = try query.request()
            set = query.set
        } catch {
            return request.error(error.status, error.reason, route: route, into: &output)
        }
        switch cache.lookup(request.site, set: set) {
        case .noSet:
            if let set, !cache.isDefault(set) {
                return request.error(
                    404, "no set named \(set) is served; /sets/ names them", route: route, into: &output)
            }
            return request.error(
                503, "no published set is installed yet", route: route, fields: [.retryAfter(seconds: 5)], into: &output
            )
        case .loading:
            return request.error(
                503, "the decision engine is loading the installed set; retry shortly", route: route,
                fields: [.retryAfter(seconds: 1)], into: &output)
        case .failed(let reason):
            return request.error(500, "the installed set cannot be explained: \(reason)", route: route, into: &output)
        case .ready(let engine, let provenance, let manifestSHA256):
            let answer = ExplainAnswer.make(
                blockerRequest, engine: engine, provenance: provenance, manifestSHA256: manifestSHA256)
            if MediaTypeNegotiation.prefersHTMLOverJSON(
                accept: request.head.accept.map { String(decoding: request.value($0), as: UTF8.self) })
            {
                let page = ExplainPage.render(answer)
                return request.respond(
                    status: 200, route: route, contentType: "text/html; charset=utf-8", body: Array(page.utf8),
                    fields: [.contentSecurityPolicy(Self.htmlPolicy), .noSniff],
                    into: &output)
            }
            let body = ExplanationJSON.bytes(answer) + [0x0A]
            return request.respond(
                status: 200, route: route, contentType: "application/json", body: body, into: &output)
        }
    }
}
