/// One header field an application adds to a response: a name and a value, so no application
/// writes wire bytes. Serialised in one place (`headLines`), `name: value` CRLF (RFC 9112 §5).
public struct HTTPField: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// RFC 9110 §10.2.3: seconds a client should wait.
    public static func retryAfter(seconds: Int) -> HTTPField { HTTPField("Retry-After", String(seconds)) }
    /// RFC 9110 §10.2.1: the methods a 405 resource supports.
    public static func allow(_ methods: String) -> HTTPField { HTTPField("Allow", methods) }
    /// RFC 9110 §11.6.1: one challenge per field.
    public static func wwwAuthenticate(_ challenge: String) -> HTTPField { HTTPField("WWW-Authenticate", challenge) }
    /// RFC 8288 §3.
    public static func link(_ value: String) -> HTTPField { HTTPField("Link", value) }
    /// RFC 9110 §12.5.5.
    public static func vary(_ value: String) -> HTTPField { HTTPField("Vary", value) }
    /// RFC 9842 §2.1.
    public static func useAsDictionary(_ value: String) -> HTTPField { HTTPField("Use-As-Dictionary", value) }
    /// CSP Level 3 §3.1.
    public static func contentSecurityPolicy(_ policy: String) -> HTTPField {
        HTTPField("Content-Security-Policy", policy)
    }
    /// Fetch §3.2.7: no MIME sniffing.
    public static let noSniff = HTTPField("X-Content-Type-Options", "nosniff")
    /// Referrer Policy §3.
    public static let noReferrer = HTTPField("Referrer-Policy", "no-referrer")
}

extension Sequence<HTTPField> {
    /// The fields as response-head lines, each ending in CRLF: the one place they become bytes.
    var headLines: String {
        var lines = ""
        for field in self { lines += field.name + ": " + field.value + "\r\n" }
        return lines
    }
}

/// A Cache-Control value (RFC 9111 §5.2) made of its directives, joined in one place.
public struct CacheControl: Sendable, Equatable {
    /// The field value as sent, e.g. `public, max-age=31536000, immutable`.
    public let value: String

    public init(_ directives: String...) {
        value = directives.joined(separator: ", ")
    }

    /// Never stored (RFC 9111 §5.2.2.5): dynamic answers, errors.
    public static let noStore = CacheControl("no-store")
    /// For names that change with their bytes: a year, never revalidated (RFC 8246).
    public static let immutable = CacheControl("public", "max-age=31536000", "immutable")

    /// Shared caches may keep it `maxAge` seconds, serve it stale while revalidating
    /// (RFC 5861 §3) and when the origin fails (RFC 5861 §4).
    public static func shared(maxAge: Int, staleWhileRevalidate: Int, staleIfError: Int) -> CacheControl {
        CacheControl(
            "public", "max-age=\(maxAge)", "stale-while-revalidate=\(staleWhileRevalidate)",
            "stale-if-error=\(staleIfError)")
    }
}
