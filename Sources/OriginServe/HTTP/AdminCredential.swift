import CCryptoShim
import Foundation
import OriginConfig

/// The admin token an operator presents for `POST /admin/refresh` and `/explain`. Only the
/// credential: what an accepted refresh does is the server's `onAdminRefresh`. Absent (nil) on the
/// server means both endpoints answer 404, as if they did not exist.
package struct AdminCredential: Sendable {
    /// The expected token bytes, compared in constant time.
    var token: [UInt8]

    package init(token: String) {
        self.token = Array(token.utf8)
    }

    /// Reads the token from the environment variable the configuration names; nil (endpoint
    /// disabled) when it is unset or empty, so no deployment exposes it by accident.
    package static func fromEnvironment(
        variable: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> AdminCredential? {
        guard let token = environment[variable], !token.isEmpty else { return nil }
        return AdminCredential(token: token)
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
            guard let decoded = Data(base64Encoded: credentials), let colon = decoded.firstIndex(of: UInt8(ascii: ":"))
            else { return false }
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
