import CCryptoShim
import Foundation

/// `POST /admin/refresh`: the bearer token an operator must present and what to do when they do.
/// Absent (nil) on the server means the endpoint answers 404, as if it did not exist.
struct AdminEndpoint: Sendable {
    /// The expected token bytes, compared in constant time.
    var token: [UInt8]
    /// Called on an event thread when an authorized refresh is accepted (the server answers 202);
    /// must return quickly, e.g. by scheduling the refresh on another queue.
    var onRefresh: @Sendable () -> Void
    /// `POST /admin/accept-compile-time`: accepts the publish the compile-time regression gate holds
    /// and refreshes; returns what was accepted (nil: nothing was held). Same rules as `onRefresh`.
    var onAcceptCompileTime: @Sendable () -> String? = { nil }

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

    /// Whether an `Authorization` field presents the token: `Bearer <token>` (RFC 6750 §2.1), and
    /// with `allowingBasic` also Basic (RFC 7617) whose password is the token, any user name (what a
    /// browser sends for a form). Compared in constant time, so timing leaks nothing about the token.
    func authorizes(_ field: UnsafeBufferPointer<UInt8>, allowingBasic: Bool) -> Bool {
        let text = String(decoding: field, as: UTF8.self)
        let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2 else { return false }
        let credentials = parts[1].trimmingCharacters(in: .whitespaces)
        let presented: [UInt8]
        switch parts[0].lowercased() {
        case "bearer":
            presented = Array(credentials.utf8)
        case "basic" where allowingBasic:
            guard let decoded = Data(base64Encoded: credentials), let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return false }
            presented = Array(decoded[decoded.index(after: colon)...])
        default:
            return false
        }
        return presented.withUnsafeBufferPointer { given in
            token.withUnsafeBufferPointer { expected in
                shim_constant_time_equal(given.baseAddress, given.count, expected.baseAddress, expected.count) == 1
            }
        }
    }
}
