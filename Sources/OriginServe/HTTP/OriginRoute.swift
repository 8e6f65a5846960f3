import Foundation
import HTTPServerCore

/// The origin's route table, declared once: which request names each route owns, whether a
/// published set answers it (then it is `503` until the first set is installed, `ColdStart`) or
/// the origin itself, and the label /metrics counts it under (the case name, in case order; the
/// HTTP library appends `not_found`, `invalid` and `options`).
package enum OriginRoute: Int, CaseIterable {
    case manifest, list, healthz, status, metrics, admin, explain, lists, unprotectedSites, acceptCompileTime, sets

    /// The exact names the origin's endpoints and the manifest own. `lists` owns every name under
    /// `lists/`, `sets` every name under `sets/` (the index and each set's files); `list` every other name (the set's hashed files and its sidecars).
    private static let exactNames: [(name: StaticString, route: OriginRoute)] = [
        ("admin/refresh", .admin), ("admin/unprotected-sites", .unprotectedSites),
        ("admin/accept-compile-time", .acceptCompileTime), ("manifest.json", .manifest), ("healthz", .healthz),
        ("status", .status),
        ("status.html", .status), ("metrics", .metrics), ("explain", .explain),
    ]

    static let labels = allCases.map { String(describing: $0) }
    static let routes = HTTPRoutes(applicationLabels: labels)

    var route: HTTPRoute { HTTPRoute(rawValue) }

    /// True for what a published set answers; false for the origin's own endpoints, which answer
    /// whether or not a set is installed.
    var servesTheSet: Bool {
        switch self {
        case .manifest, .list, .lists, .sets: return true
        case .healthz, .status, .metrics, .admin, .explain, .unprotectedSites, .acceptCompileTime: return false
        }
    }

    /// The route a request name belongs to. Compares bytes with literals, building no String.
    static func route(of name: UnsafeBufferPointer<UInt8>) -> OriginRoute {
        for entry in exactNames where equals(name, entry.name) { return entry.route }
        if SetsRoute.claims(name) { return .sets }
        return ListAliasRoute.claims(name) ? .lists : .list
    }

    /// Exact, case-sensitive comparison of request bytes with a literal.
    static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        return bytes.isEmpty || memcmp(bytes.baseAddress!, literal.utf8Start, bytes.count) == 0
    }
}
