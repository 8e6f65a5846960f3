import Foundation

/// `POST /admin/refresh`: the bearer token an operator must present and what to do when they do.
/// Absent (nil) on the server means the endpoint answers 404, as if it did not exist.
struct AdminEndpoint: Sendable {
    /// The expected token bytes, compared in constant time.
    var token: [UInt8]
    /// Called on an event thread when an authorized refresh is accepted (the server answers 202);
    /// must return quickly, e.g. by scheduling the refresh on another queue.
    var onRefresh: @Sendable () -> Void

    init(token: String, onRefresh: @escaping @Sendable () -> Void) {
        self.token = Array(token.utf8)
        self.onRefresh = onRefresh
    }

    /// Reads the token from the environment variable the configuration names; nil (endpoint
    /// disabled) when it is unset or empty, so no deployment exposes it by accident.
    static func fromEnvironment(
        variable: String,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        onRefresh: @escaping @Sendable () -> Void
    ) -> AdminEndpoint? {
        guard let token = environment[variable], !token.isEmpty else { return nil }
        return AdminEndpoint(token: token, onRefresh: onRefresh)
    }
}
