import Foundation

/// Why a fetch failed. `isRetryable` follows the retry rule: timeouts, connection errors and 5xx
/// are worth another try; 4xx, policy refusals and oversized bodies are not.
package enum FetchError: Error, CustomStringConvertible, Equatable {
    case timeout(url: String, detail: String)
    case connection(url: String, detail: String)
    case httpStatus(url: String, status: Int)
    case tooLarge(url: String, limit: Int)
    case truncated(url: String, detail: String)
    case tooManyRedirects(url: String, limit: Int)
    /// A redirect tried to leave HTTPS for plain HTTP.
    case insecureRedirect(url: String, target: String)
    case badEncoding(url: String, detail: String)
    case tls(url: String, detail: String)
    case transport(url: String, code: Int, detail: String)
    /// A local upstream (`upstreams[].path`) that cannot be read.
    case localFile(path: String, detail: String)

    var isRetryable: Bool {
        switch self {
        case .timeout, .connection, .truncated: return true
        case .httpStatus(_, let status): return (500...599).contains(status)
        case .transport: return true
        case .tooLarge, .tooManyRedirects, .insecureRedirect, .badEncoding, .tls, .localFile: return false
        }
    }

    package var description: String {
        switch self {
        case .timeout(let url, let detail):
            return "\(url): timed out (\(detail)); the upstream or the network is slow or down, will retry"
        case .connection(let url, let detail):
            return "\(url): connection failed (\(detail)); check DNS, network and the upstream host"
        case .httpStatus(let url, let status):
            return "\(url): HTTP \(status)"
                + ((500...599).contains(status)
                    ? " (upstream error, will retry)" : " (check the upstream URL in config.json)")
        case .tooLarge(let url, let limit):
            return
                "\(url): body larger than fetch.maxBodyBytes (\(limit) bytes); aborted while downloading. Raise the limit if the list really grew"
        case .truncated(let url, let detail):
            return "\(url): body truncated (\(detail))"
        case .tooManyRedirects(let url, let limit):
            return "\(url): more than fetch.maxRedirects (\(limit)) redirects (a redirect loop?)"
        case .insecureRedirect(let url, let target):
            return "\(url): refused a redirect from https to plain http (\(target))"
        case .badEncoding(let url, let detail):
            return "\(url): body could not be decoded (\(detail))"
        case .tls(let url, let detail):
            return "\(url): TLS failed (\(detail)); check the upstream's certificate and the system CA store"
        case .transport(let url, let code, let detail):
            return "\(url): transfer failed (libcurl error \(code): \(detail))"
        case .localFile(let path, let detail):
            return
                "\(path): cannot read the local upstream (\(detail)); check upstreams[].path and the file's permissions"
        }
    }
}
