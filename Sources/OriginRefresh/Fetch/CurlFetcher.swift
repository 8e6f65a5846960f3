import CappedHTTPClient
import Foundation
import OriginConfig

/// Fetches one upstream through `CappedHTTPClient` (HTTP(S) only, at most `maxRedirects` redirects,
/// never from HTTPS to HTTP, a size cap enforced while streaming on decoded bytes, gzip) with
/// connect and total timeouts and conditional requests from stored validators.
package struct CurlFetcher: Sendable {
    package var configuration: Configuration.Fetch
    /// An extra PEM trust anchor instead of the system CA store; tests use it for a loopback TLS
    /// upstream with a throwaway certificate. nil in production.
    var certificateAuthorityFile: String?
    private let client = CappedHTTPClient()

    package init(configuration: Configuration.Fetch, certificateAuthorityFile: String? = nil) {
        self.configuration = configuration
        self.certificateAuthorityFile = certificateAuthorityFile
    }

    /// One request (no retries; see `RetryPolicy`).
    package func fetch(_ url: String, validators: Validators?) throws(FetchError) -> FetchResult {
        var headers: [String] = []
        if let etag = validators?.etag { headers.append("If-None-Match: \(etag)") }
        if let lastModified = validators?.lastModified { headers.append("If-Modified-Since: \(lastModified)") }
        let request = CappedHTTPClient.Request(
            url: url, headers: headers, maxBodyBytes: configuration.maxBodyBytes,
            maxRedirects: configuration.maxRedirects,
            connectTimeoutSeconds: configuration.connectTimeoutSeconds,
            totalTimeoutSeconds: configuration.totalTimeoutSeconds,
            userAgent: configuration.userAgent, certificateAuthorityFile: certificateAuthorityFile)
        let response: CappedHTTPClient.Response
        do {
            response = try client.get(request)
        } catch {
            throw FetchError(error, url: url)
        }
        if response.status == 304 { return .notModified }
        guard response.status == 200 else { throw .httpStatus(url: url, status: response.status) }
        return .body(
            response.body, Validators(etag: response.header("etag"), lastModified: response.header("last-modified")))
    }
}

extension FetchError {
    /// The client's failure with the URL and the configuration key an operator would change.
    package init(_ error: CappedHTTPError, url: String) {
        switch error {
        case .timeout(let detail): self = .timeout(url: url, detail: detail)
        case .connection(let detail): self = .connection(url: url, detail: detail)
        case .tooLarge(let limit): self = .tooLarge(url: url, limit: limit)
        case .truncated(let detail): self = .truncated(url: url, detail: detail)
        case .tooManyRedirects(let limit): self = .tooManyRedirects(url: url, limit: limit)
        case .insecureRedirect(let target): self = .insecureRedirect(url: url, target: target)
        case .badEncoding(let detail): self = .badEncoding(url: url, detail: detail)
        case .tls(let detail): self = .tls(url: url, detail: detail)
        case .transport(let code, let detail): self = .transport(url: url, code: code, detail: detail)
        }
    }
}
