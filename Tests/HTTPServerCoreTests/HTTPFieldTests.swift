import Testing

@testable import HTTPServerCore

/// The one serialisation of application header fields and Cache-Control values.
@Suite struct HTTPFieldTests {
    @Test func fieldsBecomeOneCRLFTerminatedLineEachInOrder() {
        let fields: [HTTPField] = [
            .retryAfter(seconds: 5), .wwwAuthenticate("Bearer realm=\"x\""), .wwwAuthenticate("Basic realm=\"x\""),
            .noSniff,
        ]
        #expect(
            fields.headLines
                == "Retry-After: 5\r\nWWW-Authenticate: Bearer realm=\"x\"\r\nWWW-Authenticate: Basic realm=\"x\"\r\n"
                + "X-Content-Type-Options: nosniff\r\n")
        #expect([HTTPField]().headLines == "")
    }

    @Test func cacheControlJoinsItsDirectives() {
        #expect(CacheControl.immutable.value == "public, max-age=31536000, immutable")
        #expect(CacheControl.noStore.value == "no-store")
        #expect(
            CacheControl.shared(maxAge: 300, staleWhileRevalidate: 600, staleIfError: 86_400).value
                == "public, max-age=300, stale-while-revalidate=600, stale-if-error=86400")
    }
}
