import Converter
import Testing

@testable import ContentBlockerEngine

/// A list's site exceptions are one rule naming every site exception's line; an answer about one
/// page keeps the lines that concern it.
@Suite struct SiteExceptionLinesTests {
    let merged =
        #"{"trigger":{"url-filter":".*","if-domain":["*quiet.example","*a.whole.example","*news.example"]},"action":{"type":"ignore-previous-rules"}}"#
    let quiet = SourceLine(upstream: "easylist", line: 9, text: "@@||quiet.example^$generichide")
    let sub = SourceLine(upstream: "easylist", line: 10, text: "@@||a.whole.example^$document")
    let byDomain = SourceLine(upstream: "easylist", line: 11, text: "@@$elemhide,domain=other.example|news.example")

    @Test func keepsTheLinesNamingThePageOrAParent() {
        let lines = [quiet, sub, byDomain]
        #expect(SiteExceptionLines.concerning("www.quiet.example", json: merged, lines: lines) == [quiet])
        #expect(SiteExceptionLines.concerning("news.example", json: merged, lines: lines) == [byDomain])
        #expect(SiteExceptionLines.concerning("x.a.whole.example", json: merged, lines: lines) == [sub])
    }

    @Test func aSubdomainsLineDoesNotNameItsParent() {
        // `a.whole.example`'s exception does not act on `whole.example`, and `notquiet.example` is not `quiet.example`.
        let lines = [quiet, sub]
        #expect(SiteExceptionLines.concerning("whole.example", json: merged, lines: lines) == lines)
        #expect(!SiteExceptionLines.names("@@||notquiet.example^$document", "quiet.example"))
        #expect(!SiteExceptionLines.names("@@||quiet.example.net^$document", "quiet.example"))
        #expect(SiteExceptionLines.names("@@||quiet.example^$document", "quiet.example"))
    }

    @Test func otherRulesKeepEveryLine() {
        let joinedHiding = #"{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":".a, .b"}}"#
        let lines = [quiet, sub]
        #expect(SiteExceptionLines.concerning("quiet.example", json: joinedHiding, lines: lines) == lines)
    }
}
