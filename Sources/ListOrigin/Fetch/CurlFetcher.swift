import CCurlShim
import Foundation

/// Fetches one upstream with libcurl: HTTP(S) only, bounded redirects that may never leave HTTPS,
/// connect and total timeouts, a size cap enforced while streaming (on decoded bytes), gzip
/// transfer decoding, and conditional requests from stored validators.
struct CurlFetcher: Sendable {
    var configuration: Configuration.Fetch
    /// An extra PEM trust anchor instead of the system CA store; tests use it for a loopback TLS
    /// upstream with a throwaway certificate. nil in production.
    var certificateAuthorityFile: String?

    init(configuration: Configuration.Fetch, certificateAuthorityFile: String? = nil) {
        self.configuration = configuration
        self.certificateAuthorityFile = certificateAuthorityFile
        // Reference-counted and thread-safe in libcurl ≥ 7.84; pairs with nothing on purpose
        // (the process keeps using libcurl until it exits).
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }

    /// One request (no retries; see `RetryPolicy`).
    func fetch(_ url: String, validators: Validators?) throws(FetchError) -> FetchResult {
        guard let handle = curl_easy_init() else { throw .transport(url: url, code: -1, detail: "curl_easy_init failed") }
        defer { curl_easy_cleanup(handle) }
        let sink = TransferSink(limit: configuration.maxBodyBytes)
        let context = Unmanaged.passUnretained(sink).toOpaque()
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        if let etag = validators?.etag { headers = curl_slist_append(headers, "If-None-Match: \(etag)") }
        if let lastModified = validators?.lastModified { headers = curl_slist_append(headers, "If-Modified-Since: \(lastModified)") }

        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errors in
            shim_curl_setopt_string(handle, CURLOPT_URL, url)
            shim_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
            shim_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
            // Once on HTTPS, stay there: a downgrade would let a network attacker feed the list.
            shim_curl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, url.lowercased().hasPrefix("https:") ? "https" : "http,https")
            shim_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1)
            shim_curl_setopt_long(handle, CURLOPT_MAXREDIRS, configuration.maxRedirects)
            shim_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeoutSeconds * 1000))
            shim_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(configuration.totalTimeoutSeconds * 1000))
            shim_curl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "gzip")
            shim_curl_setopt_string(handle, CURLOPT_USERAGENT, configuration.userAgent)
            shim_curl_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(configuration.maxBodyBytes))
            shim_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errors.baseAddress)
            if let headers { shim_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headers) }
            if let certificateAuthorityFile { shim_curl_setopt_string(handle, CURLOPT_CAINFO, certificateAuthorityFile) }
            shim_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
            shim_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
            shim_curl_setopt_write_callback(handle) { data, size, count, userdata in
                let sink = Unmanaged<TransferSink>.fromOpaque(userdata!).takeUnretainedValue()
                let bytes = size * count
                return sink.append(UnsafeRawBufferPointer(start: data, count: bytes)) ? bytes : 0
            }
            shim_curl_setopt_header_callback(handle) { data, size, count, userdata in
                let sink = Unmanaged<TransferSink>.fromOpaque(userdata!).takeUnretainedValue()
                let bytes = size * count
                return sink.header(UnsafeRawBufferPointer(start: data, count: bytes)) ? bytes : 0
            }
            return curl_easy_perform(handle)
        }
        let detail = String(cString: errorBuffer).isEmpty ? String(cString: curl_easy_strerror(code)) : String(cString: errorBuffer)
        var status = 0
        shim_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)

        if sink.exceeded { throw .tooLarge(url: url, limit: configuration.maxBodyBytes) }
        switch code {
        case CURLE_OK:
            break
        case CURLE_OPERATION_TIMEDOUT:
            throw .timeout(url: url, detail: detail)
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_SEND_ERROR,
             CURLE_RECV_ERROR, CURLE_GOT_NOTHING:
            throw .connection(url: url, detail: detail)
        case CURLE_PARTIAL_FILE:
            throw .truncated(url: url, detail: detail)
        case CURLE_FILESIZE_EXCEEDED:
            throw .tooLarge(url: url, limit: configuration.maxBodyBytes)
        case CURLE_TOO_MANY_REDIRECTS:
            throw .tooManyRedirects(url: url, limit: configuration.maxRedirects)
        case CURLE_UNSUPPORTED_PROTOCOL:
            // libcurl refused the redirect target's scheme (REDIR_PROTOCOLS_STR is "https" for https URLs).
            if let location = sink.location, location.lowercased().hasPrefix("http:") {
                throw .insecureRedirect(url: url, target: location)
            }
            throw .transport(url: url, code: Int(code.rawValue), detail: detail)
        case CURLE_BAD_CONTENT_ENCODING:
            throw .badEncoding(url: url, detail: detail)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM:
            throw .tls(url: url, detail: detail)
        default:
            throw .transport(url: url, code: Int(code.rawValue), detail: detail)
        }
        if status == 304 { return .notModified }
        guard status == 200 else { throw .httpStatus(url: url, status: status) }
        // libcurl checks Content-Length itself (CURLE_PARTIAL_FILE); this catches a decoded length
        // that disagrees when no content coding was applied.
        if let declared = sink.contentLength, !sink.contentEncoded, declared != sink.body.count {
            throw .truncated(url: url, detail: "Content-Length \(declared), received \(sink.body.count) bytes")
        }
        return .body(sink.body, Validators(etag: sink.etag, lastModified: sink.lastModified))
    }
}

/// Collects one transfer's headers and body; the cap is checked on every block so an oversized
/// body is aborted while streaming, never buffered whole.
private final class TransferSink {
    let limit: Int
    var body: [UInt8] = []
    var exceeded = false
    var status = 0
    var etag: String?
    var lastModified: String?
    var contentLength: Int?
    var contentEncoded = false
    /// `Location` of the last redirect response seen.
    var location: String?

    init(limit: Int) { self.limit = limit }

    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if body.count + bytes.count > limit {
            exceeded = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// One header line (libcurl calls this per line, for every response in a redirect chain).
    func header(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            // A new response starts: forget the previous hop's headers.
            let parts = line.split(separator: " ")
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            etag = nil
            lastModified = nil
            contentLength = nil
            contentEncoded = false
            body.removeAll(keepingCapacity: true)
            return true
        }
        guard let colon = line.firstIndex(of: ":") else { return true }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        switch name {
        case "etag": etag = value
        case "location": location = value
        case "last-modified": lastModified = value
        case "content-encoding": contentEncoded = !value.isEmpty && value.lowercased() != "identity"
        case "content-length":
            contentLength = Int(value)
            // Refuse up front what the cap would refuse later (only for the final, non-redirect answer).
            if let length = contentLength, length > limit, (200...299).contains(status) {
                exceeded = true
                return false
            }
        default: break
        }
        return true
    }
}
