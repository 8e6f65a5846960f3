import Converter
import Foundation
import HTTPServerCore
import OriginConfig

/// `POST /admin/unprotected-sites?add=<host>` or `?remove=<host>`, with the admin bearer token:
/// switch blocking off (or back on) for a site on every device at its next poll. The host is
/// checked and normalised here, so a typo is refused at once with a message naming it; the change
/// itself (kept in `stateDir`, then a new manifest) runs on the refresh queue.
struct UnprotectedSitesEndpoint {
    static let path: StaticString = "admin/unprotected-sites"

    let admin: AdminCredential?
    /// Hands the checked change to the refresher; nil on a follower.
    let apply: (@Sendable (UnprotectedSiteChange) -> Void)?
    let limiter: AuthFailureLimiter
    let route: HTTPRoute

    func respond(_ request: HTTPRequest, into output: inout OutputQueue) -> HTTPAnswer {
        // Without a token, or on a follower (no one to publish), the endpoint does not exist.
        guard let admin, let apply else { return request.notFound(into: &output) }
        guard request.head.method == .post else {
            return request.error(405, "use POST", route: route, fields: [.allow("POST")], into: &output)
        }
        if let refusal = TokenGate(admin: admin, limiter: limiter).refusal(
            request, allowingBasic: false, route: route, reason: "bearer token required",
            challenges: [.wwwAuthenticate("Bearer realm=\"listserver\"")], into: &output)
        {
            return refusal
        }
        let change: UnprotectedSiteChange
        do {
            change = try Self.change(target: request.value(request.head.target))
        } catch {
            return request.error(error.status, error.reason, route: route, into: &output)
        }
        apply(change)
        let (verb, host) =
            switch change {
            case .add(let host): ("add", host)
            case .remove(let host): ("remove", host)
            }
        let body = "{\"\(verb)\":\"\(host)\",\"status\":\"accepted\",\"publishes\":\"manifest.json\"}\n"
        return request.respond(
            status: 202, route: route, contentType: "application/json", body: Array(body.utf8), into: &output)
    }

    /// The one change the query asks for, with its host normalised (IDN to punycode, lowercase).
    static func change(target: UnsafeBufferPointer<UInt8>) throws(ExplainQuery.Refusal) -> UnprotectedSiteChange {
        let fields = try ExplainQuery.queryFields(target: target)
        let add = fields["add"]
        let remove = fields["remove"]
        guard (add == nil) != (remove == nil), let entry = add ?? remove else {
            throw ExplainQuery.Refusal(
                status: 400, reason: "give one site: /admin/unprotected-sites?add=example.com or ?remove=example.com")
        }
        let host: String
        do {
            host = try SiteHost.normalize(entry)
        } catch {
            throw ExplainQuery.Refusal(status: 400, reason: error.description)
        }
        return add != nil ? .add(host) : .remove(host)
    }
}
