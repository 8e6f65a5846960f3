import Testing

@testable import ContentBlockerEngine

/// The url-filter subset, case by case. Expected answers follow WebKit's rules (docs/webkit-format.md),
/// not this implementation: each row is what a WebKit list with that filter does to that URL.
@Suite struct URLFilterRegexTests {
    func matches(_ pattern: String, _ url: String, caseSensitive: Bool = false) throws -> Bool {
        try URLFilterRegex(pattern, caseSensitive: caseSensitive).matches(Array(url.utf8))
    }

    @Test func unanchoredFiltersMatchAnywhere() throws {
        #expect(try matches("ads", "http://x.com/ads/1.js"))
        #expect(try !matches("ads", "http://x.com/ad/1.js"))
        #expect(try matches("/banner[0-9]*\\.gif", "http://x.com/banner.gif"))
        #expect(try matches("/banner[0-9]*\\.gif", "http://x.com/banner123.gif"))
        #expect(try !matches("/banner[0-9]*\\.gif", "http://x.com/bannerX.gif"))
        #expect(try !matches("a\\.b", "http://x.com/axb"))
        #expect(try matches("a.b", "http://x.com/axb"))
    }

    @Test func anchorsBindTheEnds() throws {
        #expect(try matches("^https?://", "http://x.com/"))
        #expect(try !matches("^https?://", "ftp://x.com/?u=http://"))
        #expect(try matches("\\.js$", "http://x.com/a.js"))
        #expect(try !matches("\\.js$", "http://x.com/a.js?v=1"))
        #expect(try matches("^http://x\\.com/$", "http://x.com/"))
        #expect(try !matches("^http://x\\.com/$", "http://x.com/a"))
        #expect(try matches("\\$", "http://x.com/$"), "an escaped dollar is a literal")
    }

    @Test func hostAnchorAsTheConverterWritesIt() throws {
        let host = "^[^:]+://+([^:/]+\\.)?doubleclick\\.net[/:]"
        #expect(try matches(host, "https://doubleclick.net/x"))
        #expect(try matches(host, "https://ad.g.doubleclick.net:443/x"))
        #expect(try !matches(host, "https://notdoubleclick.net/x"))
        #expect(try !matches(host, "https://doubleclick.network/x"))
        #expect(try !matches(host, "https://x.com/?doubleclick.net/"))
    }

    @Test func groupsRepeat() throws {
        #expect(try matches("^http://x\\.com/(ab)+c", "http://x.com/ababc"))
        #expect(try !matches("^http://x\\.com/(ab)+c", "http://x.com/c"))
        #expect(try matches("^http://x\\.com/(?:ab)?c", "http://x.com/c"))
        #expect(try matches("^http://x\\.com/(a*)*c", "http://x.com/aaac"), "an empty loop terminates")
    }

    @Test func caseFoldingUnlessCaseSensitive() throws {
        #expect(try matches("/ADS/", "http://x.com/ads/"))
        #expect(try matches("/ads/", "http://x.com/ADS/"))
        #expect(try !matches("/ads/", "http://x.com/ADS/", caseSensitive: true))
        #expect(try matches("[A-Z]x", "http://x.com/ax"))
        #expect(try !matches("/[^a]/", "http://x.com/A/"), "the class folds before it is negated")
        #expect(try matches("/[^a]/", "http://x.com/A/", caseSensitive: true))
    }

    @Test func backreferencesMatchNothing() throws {
        #expect(try !matches("/(ab)c\\1\\.js", "http://x.com/abcab.js"))
        #expect(try !matches("/(ab)c\\1\\.js", "http://x.com/abc1.js"))
    }

    @Test func whatWebKitRejectsIsRejected() {
        for pattern in [
            "a|b", "(ads|track)", "a{2}", "\\d", "\\w", "\\b", "(?=x)", "a^b", "a$b", "(ads", "ads)", "pubé", "", "*a",
        ] {
            #expect(throws: URLFilterError.self, "\(pattern)") { try URLFilterRegex(pattern) }
        }
    }

    @Test func requiredLiteralsAreWhatEveryMatchContains() throws {
        let literals = try URLFilterRegex("^[^:]+://+([^:/]+\\.)?Doubleclick\\.net[/:]").requiredLiterals
        #expect(literals.map { String(decoding: $0, as: UTF8.self) } == ["://", "doubleclick.net"])
        #expect(
            try URLFilterRegex("ab?cd").requiredLiterals.map { String(decoding: $0, as: UTF8.self) } == ["a", "cd"])
    }
}
