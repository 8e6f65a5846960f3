import Foundation
import HTTPServerCore
import OriginConfig
import OriginStore

/// The routes the origin counts its answers under, in the order /metrics lists them (the HTTP
/// library appends `not_found`, `invalid` and `options`).
package enum OriginRoute: Int, CaseIterable {
    case manifest, list, healthz, status, metrics, admin, explain, lists, sets

    static let labels = ["manifest", "list", "healthz", "status", "metrics", "admin", "explain", "lists", "sets"]
    static let routes = HTTPRoutes(applicationLabels: labels)

    var route: HTTPRoute { HTTPRoute(rawValue) }
}

/// The origin's endpoints on top of the library's static serving: `manifest.json` and the hashed
/// lists (static resources), their stable aliases under `/lists/`, `/healthz`, `/status`, `/metrics` and `POST /admin/refresh`.
///
/// One reference to shared state, so the existential the server holds stores it inline.
package struct OriginResponder: HTTPResponder {
    package final class State: @unchecked Sendable {
        package let admin: AdminEndpoint?
        package let status: StatusBoard
        package let explain: ExplainEngineCache
        /// Counts failed admin token attempts per client address (`/explain`, `/admin/refresh`).
        let authLimiter: AuthFailureLimiter
        /// The environment variable that holds the admin token, named on the status page when it is unset.
        let adminTokenVariable: String
        /// Where the served set is written, for its sidecar files (`SetSidecars`); nil: none served.
        package let publicDirectory: String?
        /// Gathers the server's counters for /status and /metrics; set once the server exists.
        var activity: () -> ServerActivity = {
            ServerActivity(version: "", startedAt: Date(), now: Date(), openConnections: 0, metrics: HTTPCounters(routeLabels: []),
                           fileDates: [:], manifestInstalled: false)
        }

        package init(admin: AdminEndpoint?, status: StatusBoard, explain: ExplainEngineCache, authLimiter: AuthFailureLimiter = AuthFailureLimiter(),
             adminTokenVariable: String = Configuration.HTTP.defaults.adminTokenEnvironmentVariable, publicDirectory: String? = nil) {
            self.admin = admin
            self.status = status
            self.explain = explain
            self.authLimiter = authLimiter
            self.adminTokenVariable = adminTokenVariable
            self.publicDirectory = publicDirectory
        }
    }

    package let state: State

    package func respond(to request: HTTPRequest, name: UnsafeBufferPointer<UInt8>, into output: inout OutputQueue) -> HTTPAnswer {
        let method = request.head.method
        if Self.equals(name, "admin/refresh") {
            // Without a configured token the endpoint does not exist (404 for every method).
            return adminRefresh(request, into: &output)
        }
        guard method == .get || method == .head else {
            return request.error(405, "method not allowed", route: request.routes.invalid, extraHeaders: "Allow: GET, HEAD\r\n", into: &output)
        }
        let site = request.site
        if ColdStart.isCold(site), let route = Self.setRoute(name) {
            return ColdStart.answer(request, route: route, into: &output)
        }
        if Self.equals(name, "manifest.json"), let manifest = site.resource(named: name) {
            return request.serve(manifest, route: OriginRoute.manifest.route, into: &output)
        }
        if ListAliasRoute.claims(name) {
            return ListAliasRoute.respond(request, name: name, route: OriginRoute.lists.route, into: &output)
        }
        if SetsRoute.claims(name) {
            return SetsRoute.respond(request, name: name, publicDirectory: state.publicDirectory, isDefault: state.explain.isDefault, into: &output)
        }
        if let resource = site.resource(named: name) {
            return request.serve(resource, route: OriginRoute.list.route, into: &output)
        }
        if let sidecar = SetSidecars.answer(request, name: name, directory: state.publicDirectory, route: OriginRoute.explain.route, into: &output) {
            return sidecar
        }
        if Self.equals(name, "explain") {
            return ExplainEndpoint(cache: state.explain, admin: state.admin, limiter: state.authLimiter, route: OriginRoute.explain.route).respond(request, into: &output)
        }
        if Self.equals(name, "healthz") {
            let healthy = !ColdStart.isCold(site)
            let body = Array((healthy ? "{\"status\":\"ok\"}\n" : "{\"status\":\"no manifest installed\"}\n").utf8)
            return request.respond(status: healthy ? 200 : 503, route: OriginRoute.healthz.route, contentType: "application/json", body: body,
                                   into: &output)
        }
        if Self.equals(name, "status.html") || (Self.equals(name, "status")
            && MediaTypeNegotiation.prefersHTMLOverJSON(accept: request.head.accept.map { String(decoding: request.value($0), as: UTF8.self) })) {
            var statusPage = StatusPage(status: state.status.current, activity: state.activity(), history: state.status.history?.current ?? [])
            statusPage.explainOffBecauseUnset = state.admin == nil ? state.adminTokenVariable : nil
            let page = statusPage.render()
            return request.respond(status: 200, route: OriginRoute.status.route, contentType: StatusPage.contentType, body: page,
                                   extraHeaders: StatusPage.headers, into: &output)
        }
        if Self.equals(name, "status") {
            let body = StatusDocument(status: state.status.current, activity: state.activity()).encoded()
            return request.respond(status: 200, route: OriginRoute.status.route, contentType: "application/json", body: body, into: &output)
        }
        if Self.equals(name, "metrics") {
            let body = MetricsRenderer(status: state.status.current, activity: state.activity()).render()
            return request.respond(status: 200, route: OriginRoute.metrics.route, contentType: "text/plain; version=0.0.4; charset=utf-8",
                                   body: body, into: &output)
        }
        return request.notFound(into: &output)
    }

    /// The route of a name a published set would answer (the manifest, `lists/`, any other file
    /// name), nil for the origin's own endpoints, which answer whether or not a set is installed.
    private static func setRoute(_ name: UnsafeBufferPointer<UInt8>) -> HTTPRoute? {
        if equals(name, "manifest.json") { return OriginRoute.manifest.route }
        if ListAliasRoute.claims(name) { return OriginRoute.lists.route }
        for endpoint: StaticString in ["explain", "healthz", "status", "status.html", "metrics"] where equals(name, endpoint) { return nil }
        return OriginRoute.list.route
    }

    /// Exact, case-sensitive comparison of request bytes with a literal (no String built).
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        return bytes.isEmpty || memcmp(bytes.baseAddress!, literal.utf8Start, bytes.count) == 0
    }

    // MARK: Admin

    /// `POST /admin/refresh` with `Authorization: Bearer <token>` (RFC 6750 §2.1), compared in
    /// constant time so response timing leaks nothing about the token.
    private func adminRefresh(_ request: HTTPRequest, into output: inout OutputQueue) -> HTTPAnswer {
        guard let admin = state.admin else { return request.notFound(into: &output) }
        let route = OriginRoute.admin.route
        guard request.head.method == .post else {
            return request.error(405, "use POST", route: route, extraHeaders: "Allow: POST\r\n", into: &output)
        }
        if let refusal = TokenGate(admin: admin, limiter: state.authLimiter).refusal(
            request, allowingBasic: false, route: route, reason: "bearer token required",
            challenges: "WWW-Authenticate: Bearer realm=\"listserver\"\r\n", into: &output) {
            return refusal
        }
        admin.onRefresh()
        return request.respond(status: 202, route: route, contentType: "application/json", body: Array("{\"refresh\":\"accepted\"}\n".utf8),
                               into: &output)
    }
}
