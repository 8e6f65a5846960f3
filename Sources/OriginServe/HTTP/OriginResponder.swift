import Foundation
import HTTPServerCore
import OriginConfig
import OriginStore

/// The origin's endpoints on top of the library's static serving: `manifest.json` and the hashed
/// lists (static resources), their stable aliases under `/lists/`, `/healthz`, `/status`, `/metrics` and `POST /admin/refresh`.
///
/// One reference to shared state, so the existential the server holds stores it inline.
package struct OriginResponder: HTTPResponder {
    package final class State: @unchecked Sendable {
        package let admin: AdminCredential?
        /// What an authorized `POST /admin/refresh` does (the set source's trigger); called on an
        /// event thread, so it must return at once.
        let onAdminRefresh: @Sendable () -> Void
        /// What an authorized `POST /admin/accept-compile-time` does before that refresh: accepts the
        /// publish the compile-time regression gate holds; returns what was accepted (nil: nothing held).
        let onAcceptCompileTime: @Sendable () -> String?
        /// What an authorized `POST /admin/unprotected-sites` does; nil (a follower): that endpoint is 404.
        let onUnprotectedSite: (@Sendable (UnprotectedSiteChange) -> Void)?
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
            ServerActivity(
                version: "", startedAt: Date(), now: Date(), openConnections: 0, metrics: HTTPCounters(routeLabels: []),
                fileDates: [:], manifestInstalled: false)
        }

        package init(
            admin: AdminCredential?, onAdminRefresh: @escaping @Sendable () -> Void = {},
            onAcceptCompileTime: @escaping @Sendable () -> String? = { nil },
            onUnprotectedSite: (@Sendable (UnprotectedSiteChange) -> Void)? = nil, status: StatusBoard,
            explain: ExplainEngineCache,
            authLimiter: AuthFailureLimiter = AuthFailureLimiter(),
            adminTokenVariable: String = Configuration.HTTP.defaults.adminTokenEnvironmentVariable,
            publicDirectory: String? = nil
        ) {
            self.admin = admin
            self.onAdminRefresh = onAdminRefresh
            self.onAcceptCompileTime = onAcceptCompileTime
            self.onUnprotectedSite = onUnprotectedSite
            self.status = status
            self.explain = explain
            self.authLimiter = authLimiter
            self.adminTokenVariable = adminTokenVariable
            self.publicDirectory = publicDirectory
        }
    }

    package let state: State

    /// Routes by `OriginRoute`'s table: the admin endpoint takes any method (to say 405 or 404
    /// itself); everything else is GET or HEAD, and a set's routes are cold until one is installed.
    package func respond(to request: HTTPRequest, name: UnsafeBufferPointer<UInt8>, into output: inout OutputQueue)
        -> HTTPAnswer
    {
        let route = OriginRoute.route(of: name)
        // The admin endpoints take any method (to say 405 or 404 themselves); without a configured
        // token they do not exist (404 for every method).
        if route == .admin { return adminRefresh(request, into: &output) }
        if route == .acceptCompileTime { return adminRefresh(request, acceptingCompileTime: true, into: &output) }
        if route == .unprotectedSites {
            return UnprotectedSitesEndpoint(
                admin: state.admin, apply: state.onUnprotectedSite, limiter: state.authLimiter, route: route.route
            )
            .respond(request, into: &output)
        }
        let method = request.head.method
        guard method == .get || method == .head else {
            return request.error(
                405, "method not allowed", route: request.routes.invalid, fields: [.allow("GET, HEAD")], into: &output)
        }
        let site = request.site
        if route.servesTheSet, ColdStart.isCold(site) {
            return ColdStart.answer(request, route: route.route, into: &output)
        }
        switch route {
        case .manifest, .list:
            if let resource = site.resource(named: name) {
                return request.serve(resource, route: route.route, into: &output)
            }
            return SetSidecars.answer(
                request, name: name, directory: state.publicDirectory, route: OriginRoute.explain.route, into: &output)
                ?? request.notFound(into: &output)
        case .sets:
            return SetsRoute.respond(
                request, name: name, publicDirectory: state.publicDirectory, isDefault: state.explain.isDefault,
                into: &output)
        case .lists:
            return ListAliasRoute.respond(request, name: name, route: route.route, into: &output)
        case .explain:
            return ExplainEndpoint(
                cache: state.explain, admin: state.admin, limiter: state.authLimiter, route: route.route
            ).respond(request, into: &output)
        case .healthz:
            let healthy = !ColdStart.isCold(site)
            let body = Array((healthy ? "{\"status\":\"ok\"}\n" : "{\"status\":\"no manifest installed\"}\n").utf8)
            return request.respond(
                status: healthy ? 200 : 503, route: route.route, contentType: "application/json", body: body,
                into: &output)
        case .status:
            var status = state.status.current
            var activity = state.activity()
            var history = state.status.history?.current ?? []
            var setName: String?
            if let set = try? ExplainQuery.queryFields(target: request.value(request.head.target))["set"],
                !state.explain.isDefault(set)
            {
                guard let view = SetStatusView(set: set, board: state.status, activity: activity) else {
                    return request.error(
                        404, "no set named \(set) is served; /sets/ names them", route: route.route, into: &output)
                }
                (status, activity, history, setName) = (view.status, view.activity, view.history, set)
            }
            if OriginRoute.equals(name, "status.html")
                || MediaTypeNegotiation.prefersHTMLOverJSON(
                    accept: request.head.accept.map { String(decoding: request.value($0), as: UTF8.self) })
            {
                var statusPage = StatusPage(status: status, activity: activity, history: history)
                statusPage.setName = setName
                statusPage.explainOffBecauseUnset = state.admin == nil ? state.adminTokenVariable : nil
                let page = statusPage.render()
                return request.respond(
                    status: 200, route: route.route, contentType: StatusPage.contentType, body: page,
                    fields: StatusPage.fields, into: &output)
            }
            let body = StatusDocument(status: status, activity: activity).encoded()
            return request.respond(
                status: 200, route: route.route, contentType: "application/json", body: body, into: &output)
        case .metrics:
            let body = MetricsRenderer(status: state.status.current, activity: state.activity()).render()
            return request.respond(
                status: 200, route: route.route, contentType: "text/plain; version=0.0.4; charset=utf-8",
                body: body, into: &output)
        case .admin, .unprotectedSites, .acceptCompileTime:
            return request.notFound(into: &output)  // answered above
        }
    }

    // MARK: Admin

    /// `POST /admin/refresh` with `Authorization: Bearer <token>` (RFC 6750 §2.1), compared in
    /// constant time so response timing leaks nothing about the token.
    /// `POST /admin/accept-compile-time` is the same with the held publish accepted first.
    private func adminRefresh(
        _ request: HTTPRequest, acceptingCompileTime: Bool = false, into output: inout OutputQueue
    ) -> HTTPAnswer {
        guard let admin = state.admin else { return request.notFound(into: &output) }
        let route = (acceptingCompileTime ? OriginRoute.acceptCompileTime : OriginRoute.admin).route
        guard request.head.method == .post else {
            return request.error(405, "use POST", route: route, fields: [.allow("POST")], into: &output)
        }
        if let refusal = TokenGate(admin: admin, limiter: state.authLimiter).refusal(
            request, allowingBasic: false, route: route, reason: "bearer token required",
            challenges: [.wwwAuthenticate("Bearer realm=\"listserver\"")], into: &output)
        {
            return refusal
        }
        var body = "{\"refresh\":\"accepted\"}\n"
        if acceptingCompileTime {
            // Candidates are list ids and hex hash prefixes: nothing to escape.
            body =
                "{\"accepted\":\(state.onAcceptCompileTime().map { "\"\($0)\"" } ?? "null"),\"refresh\":\"accepted\"}\n"
        }
        state.onAdminRefresh()
        return request.respond(
            status: 202, route: route, contentType: "application/json", body: Array(body.utf8), into: &output)
    }
}
