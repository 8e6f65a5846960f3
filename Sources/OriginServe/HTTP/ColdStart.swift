import HTTPServerCore

/// What the origin says before its first set is installed (the first conversion and the WebKit
/// gate can take many seconds on a fresh machine): `503` with `Retry-After` and
/// `Cache-Control: no-store` for the manifest and every path a set would serve, so a CDN in front
/// stores nothing and asks again, instead of keeping a cacheable `404` for its max-age. The
/// origin's own endpoints (`/healthz`, `/status`, `/metrics`, `/explain`, `/admin/refresh`) answer as usual.
package enum ColdStart {
    static let retryAfterSeconds = 5

    /// True while no manifest is installed (`/healthz` answers 503 then too). Asked once per
    /// request before routing, so it looks the name up from static bytes, allocating nothing.
    static func isCold(_ site: StaticSite) -> Bool {
        let manifest: StaticString = "manifest.json"
        return manifest.withUTF8Buffer { site.resource(named: $0) } == nil
    }

    package static func answer(_ request: HTTPRequest, route: HTTPRoute, into output: inout OutputQueue) -> HTTPAnswer {
        request.error(
            503, "no published set is installed yet: the first conversion is running; retry shortly", route: route,
            fields: [.retryAfter(seconds: retryAfterSeconds)], into: &output)
    }
}
