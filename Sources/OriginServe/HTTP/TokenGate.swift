import HTTPServerCore

/// The admin token check of `/explain` and `POST /admin/refresh`, behind `AuthFailureLimiter`: a
/// client over its failure budget gets 429 before its token is compared; a wrong or missing token
/// is counted and answered 401 with the endpoint's challenge.
package struct TokenGate {
    package let admin: AdminCredential
    let limiter: AuthFailureLimiter

    /// Nil when the request presents the token; otherwise the refusal, already written.
    func refusal(
        _ request: HTTPRequest, allowingBasic: Bool, route: HTTPRoute, reason: String, challenges: [HTTPField],
        into output: inout OutputQueue
    ) -> HTTPAnswer? {
        let peer = request.peerAddress
        if let wait = limiter.refusal(for: peer) {
            return request.error(
                429, "too many failed admin token attempts from this address; retry in \(wait) s", route: route,
                fields: [.retryAfter(seconds: wait)], into: &output)
        }
        if let field = request.head.authorization, admin.authorizes(request.value(field), allowingBasic: allowingBasic)
        {
            return nil
        }
        limiter.recordFailure(peer)
        return request.error(401, reason, route: route, fields: challenges, into: &output)
    }
}
