/// What the server needs from one parsed request head. Header values are byte ranges into the
/// buffer the head was parsed from, so parsing allocates nothing for the common request.
///
/// Dependency-free (no Foundation), like the parser.
public struct HTTPRequestHead: Equatable, Sendable {
    public enum Method: Equatable, Sendable {
        case get, head, post
        /// Answered for the server as a whole (`OPTIONS *`); 405 on a resource, like other methods.
        case options
        /// Any other syntactically valid method; answered 405.
        case other
    }

    public enum Version: Equatable, Sendable {
        case http10, http11
    }

    /// A header that may appear on several lines: RFC 9110 §5.3 lets a recipient combine them
    /// into one comma-separated list, in order. The first two lines are stored inline, so the
    /// usual one-line header costs no allocation; iterate the value itself on hot paths.
    public struct ListValue: Equatable, Sequence, Sendable {
        private var first: Range<Int>?
        private var second: Range<Int>?
        private var rest: [Range<Int>] = []

        public init() {}

        public var isPresent: Bool { first != nil }

        /// Every line in order (allocates; for tests and tools).
        public var lines: [Range<Int>] { Array(self) }

        public mutating func append(_ line: Range<Int>) {
            if first == nil {
                first = line
            } else if second == nil {
                second = line
            } else {
                rest.append(line)
            }
        }

        public func makeIterator() -> Iterator { Iterator(value: self) }

        public struct Iterator: IteratorProtocol {
            let value: ListValue
            var index = 0

            public mutating func next() -> Range<Int>? {
                defer { index += 1 }
                switch index {
                case 0: return value.first
                case 1: return value.second
                default: return index - 2 < value.rest.count ? value.rest[index - 2] : nil
                }
            }
        }
    }

    public init() {}

    public var method: Method = .other
    /// The request-target exactly as sent.
    public var target: Range<Int> = 0..<0
    public var version: Version = .http11
    /// Bytes of the head including the terminating empty line; the body (if any) starts here.
    public var length = 0

    public var hostCount = 0
    public var contentLength: Int?
    /// `Transfer-Encoding: chunked` was sent (any other coding is rejected with 501).
    public var chunked = false
    public var connectionClose = false
    public var connectionKeepAlive = false
    public var acceptEncoding = ListValue()
    public var ifNoneMatch = ListValue()
    public var ifMatch = ListValue()
    public var ifModifiedSince: Range<Int>?
    public var ifUnmodifiedSince: Range<Int>?
    public var range: Range<Int>?
    public var ifRange: Range<Int>?
    public var authorization: Range<Int>?
    /// `Accept` (the last one sent), for pages offered as JSON and HTML.
    public var accept: Range<Int>?

    /// RFC 9112 §9.3: HTTP/1.1 persists unless `close`; HTTP/1.0 only with `keep-alive`.
    public var wantsKeepAlive: Bool {
        switch version {
        case .http11: return !connectionClose
        case .http10: return connectionKeepAlive && !connectionClose
        }
    }
}

/// Why a request head was refused; each maps to one status code and the connection closes.
public enum HTTPParseError: Error, Equatable, Sendable {
    /// 400: malformed request line or header, obs-fold, bad or missing Host, bad framing.
    case badRequest(String)
    /// 414: the request line exceeds `maxURIBytes`.
    case uriTooLong
    /// 431: the head exceeds `maxHeaderBytes`.
    case headerFieldsTooLarge
    /// 501: a transfer coding other than `chunked`.
    case notImplemented(String)
    /// 505: a major version other than 1.
    case versionNotSupported

    public var statusCode: Int {
        switch self {
        case .badRequest: return 400
        case .uriTooLong: return 414
        case .headerFieldsTooLarge: return 431
        case .notImplemented: return 501
        case .versionNotSupported: return 505
        }
    }

    public var reason: String {
        switch self {
        case .badRequest(let why): return why
        case .uriTooLong: return "request target too long"
        case .headerFieldsTooLarge: return "request header block too large"
        case .notImplemented(let why): return why
        case .versionNotSupported: return "only HTTP/1.0 and HTTP/1.1 are supported"
        }
    }
}

public enum HTTPParseResult: Equatable, Sendable {
    /// The head is not complete yet; read more (within the limits).
    case incomplete
    case complete(HTTPRequestHead)
    case failure(HTTPParseError)
}
