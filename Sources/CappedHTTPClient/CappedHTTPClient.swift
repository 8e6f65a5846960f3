import CCurlShim

/// One GET through libcurl with a body cap enforced while streaming: the origin's upstream fetcher
/// and the device's capped reads on Linux share it, so both follow the same redirect policy.
///
/// The redirect policy (what an app's URLSession and an origin's fetcher would both expect):
/// redirects are followed, at most `maxRedirects` of them, over http and https only, and a chain
/// that reached HTTPS never steps down to plain HTTP (a downgrade would let a network attacker feed
/// the body). Request headers go along on every hop.
public struct CappedHTTPClient: Sendable {
    public struct Request: Sendable {
        public var url: String
        /// Extra request header lines, "Name: value".
        public var headers: [String]
        /// The most body bytes accepted after content decoding (gzip is offered and inflated by
        /// libcurl, so a gzip bomb stops at the cap too).
        public var maxBodyBytes: Int
        public var maxRedirects: Int
        /// nil: libcurl's default (300 s).
        public var connectTimeoutSeconds: Double?
        public var totalTimeoutSeconds: Double
        public var userAgent: String?
        /// An extra PEM trust anchor instead of the system CA store (tests over loopback TLS).
        public var certificateAuthorityFile: String?

        public init(
            url: String, headers: [String] = [], maxBodyBytes: Int,
            maxRedirects: Int = CappedHTTPClient.defaultMaxRedirects,
            connectTimeoutSeconds: Double? = nil, totalTimeoutSeconds: Double, userAgent: String? = nil,
            certificateAuthorityFile: String? = nil
        ) {
            self.url = url
            self.headers = headers
            self.maxBodyBytes = maxBodyBytes
            self.maxRedirects = maxRedirects
            self.connectTimeoutSeconds = connectTimeoutSeconds
            self.totalTimeoutSeconds = totalTimeoutSeconds
            self.userAgent = userAgent
            self.certificateAuthorityFile = certificateAuthorityFile
        }
    }

    /// The final hop's answer (after redirects).
    public struct Response: Sendable, Equatable {
        public var status: Int
        /// The final response's header fields, names lowercased, in arrival order.
        public var headers: [(name: String, value: String)]
        /// The body after content decoding.
        public var body: [UInt8]

        public func header(_ name: String) -> String? { headers.last { $0.name == name }?.value }

        public static func == (lhs: Response, rhs: Response) -> Bool {
            lhs.status == rhs.status && lhs.body == rhs.body
                && lhs.headers.map { [$0.name, $0.value] } == rhs.headers.map { [$0.name, $0.value] }
        }
    }

    /// As many redirects as URLSession and libcurl's own tools tolerate in practice for a list URL.
    public static let defaultMaxRedirects = 5

    public init() {
        // Reference-counted and thread-safe in libcurl ≥ 7.84; pairs with nothing on purpose
        // (the process keeps using libcurl until it exits).
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }

    /// One request, no retries. Throws once the body passes the cap (announced or received).
    public func get(_ request: Request) throws(CappedHTTPError) -> Response {
        guard let handle = curl_easy_init() else { throw .transport(code: -1, detail: "curl_easy_init failed") }
        defer { curl_easy_cleanup(handle) }
        let sink = CappedTransferSink(limit: request.maxBodyBytes)
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        for line in request.headers { headers = curl_slist_append(headers, line) }

        let code: CURLcode = withExtendedLifetime(sink) {
            errorBuffer.withUnsafeMutableBufferPointer { errors in
                let context = Unmanaged.passUnretained(sink).toOpaque()
                shim_curl_setopt_string(handle, CURLOPT_URL, request.url)
                shim_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
                shim_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
                shim_curl_setopt_string(
                    handle, CURLOPT_REDIR_PROTOCOLS_STR,
                    request.url.lowercased().hasPrefix("https:") ? "https" : "http,https")
                shim_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1)
                shim_curl_setopt_long(handle, CURLOPT_MAXREDIRS, request.maxRedirects)
                if let connect = request.connectTimeoutSeconds {
                    shim_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(connect * 1000))
                }
                shim_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(request.totalTimeoutSeconds * 1000))
                shim_curl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "gzip")
                if let agent = request.userAgent { shim_curl_setopt_string(handle, CURLOPT_USERAGENT, agent) }
                // An announced Content-Length over the cap is refused before any body byte.
                shim_curl_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maxBodyBytes))
                shim_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errors.baseAddress)
                if let headers { shim_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headers) }
                if let file = request.certificateAuthorityFile { shim_curl_setopt_string(handle, CURLOPT_CAINFO, file) }
                shim_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
                shim_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
                shim_curl_setopt_write_callback(handle) { data, size, count, userdata in
                    let sink = Unmanaged<CappedTransferSink>.fromOpaque(userdata!).takeUnretainedValue()
                    let bytes = size * count
                    // Returning less than `bytes` is CURLE_WRITE_ERROR: libcurl stops reading now.
                    return sink.append(UnsafeRawBufferPointer(start: data, count: bytes)) ? bytes : 0
                }
                shim_curl_setopt_header_callback(handle) { data, size, count, userdata in
                    let sink = Unmanaged<CappedTransferSink>.fromOpaque(userdata!).takeUnretainedValue()
                    let bytes = size * count
                    return sink.header(UnsafeRawBufferPointer(start: data, count: bytes)) ? bytes : 0
                }
                return curl_easy_perform(handle)
            }
        }
        let message = String(cString: errorBuffer)
        let detail = message.isEmpty ? String(cString: curl_easy_strerror(code)) : message
        var status = 0
        shim_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)

        if sink.exceeded { throw .tooLarge(limit: request.maxBodyBytes) }
        switch code {
        case CURLE_OK:
            break
        case CURLE_OPERATION_TIMEDOUT:
            throw .timeout(detail: detail)
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_SEND_ERROR,
            CURLE_RECV_ERROR, CURLE_GOT_NOTHING:
            throw .connection(detail: detail)
        case CURLE_PARTIAL_FILE:
            throw .truncated(detail: detail)
        case CURLE_FILESIZE_EXCEEDED:
            throw .tooLarge(limit: request.maxBodyBytes)
        case CURLE_TOO_MANY_REDIRECTS:
            throw .tooManyRedirects(limit: request.maxRedirects)
        case CURLE_UNSUPPORTED_PROTOCOL:
            // libcurl refused the redirect target's scheme (REDIR_PROTOCOLS_STR is "https" for https URLs).
            if let location = sink.location, location.lowercased().hasPrefix("http:") {
                throw .insecureRedirect(target: location)
            }
            throw .transport(code: Int(code.rawValue), detail: detail)
        case CURLE_BAD_CONTENT_ENCODING:
            throw .badEncoding(detail: detail)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM:
            throw .tls(detail: detail)
        default:
            throw .transport(code: Int(code.rawValue), detail: detail)
        }
        // libcurl checks Content-Length itself (CURLE_PARTIAL_FILE); this catches a decoded length
        // that disagrees when no content coding was applied.
        if status == 200, let declared = sink.contentLength, !sink.contentEncoded, declared != sink.body.count {
            throw .truncated(detail: "Content-Length \(declared), received \(sink.body.count) bytes")
        }
        return Response(status: status, headers: sink.headers, body: sink.body)
    }
}
