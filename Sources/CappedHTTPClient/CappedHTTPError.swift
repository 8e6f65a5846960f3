/// Why a capped GET failed, by what a caller does about it; callers add the URL and their own advice.
public enum CappedHTTPError: Error, Equatable, CustomStringConvertible {
    case timeout(detail: String)
    case connection(detail: String)
    /// The body passed the cap (announced or while streaming); the transfer was stopped.
    case tooLarge(limit: Int)
    case truncated(detail: String)
    case tooManyRedirects(limit: Int)
    /// A redirect tried to leave HTTPS for plain HTTP.
    case insecureRedirect(target: String)
    case badEncoding(detail: String)
    case tls(detail: String)
    case transport(code: Int, detail: String)

    public var description: String {
        switch self {
        case .timeout(let detail): return "timed out (\(detail))"
        case .connection(let detail): return "connection failed (\(detail))"
        case .tooLarge(let limit): return "body larger than \(limit) bytes; stopped while downloading"
        case .truncated(let detail): return "body truncated (\(detail))"
        case .tooManyRedirects(let limit): return "more than \(limit) redirects"
        case .insecureRedirect(let target): return "refused a redirect from https to plain http (\(target))"
        case .badEncoding(let detail): return "body could not be decoded (\(detail))"
        case .tls(let detail): return "TLS failed (\(detail))"
        case .transport(let code, let detail): return "transfer failed (libcurl error \(code): \(detail))"
        }
    }
}
