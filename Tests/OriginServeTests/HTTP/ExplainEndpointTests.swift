import Converter
import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginServe
@testable import OriginStore

/// `GET /explain` on the real HTTP server over loopback: bad input is refused with a
/// clear 4xx before any engine load, the admin token is required (Bearer, or Basic with the token
/// as password), and a valid answer is byte for byte what `listserver explain --json` prints for
/// the same set; HTML for a browser, with a strict CSP.
@Suite(.serialized) struct ExplainEndpointTests {

    static func errorText(_ response: HTTPTestResponse) -> String {
        ((try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any])?["error"] as? String
            ?? "<not a JSON error: \(response.bodyText)>"
    }

    @Test func badInputGetsAClear4xxAndLoadsNothing() async throws {
        let fixture = try ExplainFixture()
        let cases: [(label: String, target: String, status: Int, says: String)] = [
            (
                "over-long URL", ExplainFixture.query("https://ads.example/" + String(repeating: "a", count: 3_000)),
                414, "the limit is 2048"
            ),
            (
                "over-long page",
                ExplainFixture.query(
                    "https://ads.example/x.js", page: "https://site.example/" + String(repeating: "b", count: 2_100)),
                414, "limit"
            ),
            ("non-HTTP scheme", ExplainFixture.query("javascript:alert(1)"), 400, "http:// or https://"),
            (
                "ftp page", ExplainFixture.query("https://ads.example/x.js", page: "ftp://site.example/"), 400,
                "http:// or https://"
            ),
            ("bad type", ExplainFixture.query("https://ads.example/x.js", type: "rocket"), 400, "unknown type"),
            ("missing url", "/explain?page=https%3A%2F%2Fsite.example%2F", 400, "give the request"),
            ("no query", "/explain", 400, "give the request"),
            ("bad escape", "/explain?url=https%3A%2F%2Fads.example%2F%zz", 400, "percent-encoded"),
        ]
        for item in cases {
            let response = try fixture.get(item.target)
            #expect(response.status == item.status, "\(item.label): \(response.status) \(response.bodyText)")
            #expect(response.header("Content-Type") == "application/json", "\(item.label)")
            #expect(Self.errorText(response).contains(item.says), "\(item.label): \(Self.errorText(response))")
        }
        // None of that started a load: the first valid request is the one that does.
        let first = try fixture.get(
            ExplainFixture.query("https://ads.example/other.js", page: "https://site.example/", type: "script"))
        #expect(first.status == 503, "bad input must not load the engine: \(first.status)")
        #expect(first.header("Retry-After") != nil)
        #expect(
            try await fixture.answer(
                ExplainFixture.query("https://ads.example/other.js", page: "https://site.example/", type: "script")
            ).status == 200)
    }

    @Test func theAdminTokenIsRequiredAsBearerOrBasicPassword() async throws {
        let fixture = try ExplainFixture()
        let target = ExplainFixture.query("https://ads.example/other.js", type: "script")
        let basic = { (user: String, password: String) in
            "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        }
        for (label, headers) in [
            ("no token", [:]), ("wrong bearer", ["Authorization": "Bearer nope"]),
            ("wrong basic", ["Authorization": basic("admin", "nope")]),
            ("token as basic user", ["Authorization": basic(ExplainFixture.token, "")]),
        ] {
            let response = try fixture.get(target, headers: headers)
            #expect(response.status == 401, "\(label): \(response.status)")
            let challenges = response.headers("WWW-Authenticate")
            #expect(
                challenges.contains { $0.hasPrefix("Bearer ") } && challenges.contains { $0.hasPrefix("Basic ") },
                "\(label): \(challenges)")
        }
        // An unauthorized request loads nothing either.
        #expect(try fixture.get(target).status == 503)
        #expect(try await fixture.answer(target).status == 200)
        #expect(
            try fixture.get(target, headers: ["Authorization": basic("anyone", ExplainFixture.token)]).status == 200)
        // Bad input without a token is a 401, not a hint about the input.
        #expect(try fixture.get("/explain", headers: [:]).status == 401)
    }

    @Test func anAnswerIsWhatTheExplainCommandPrints() async throws {
        let fixture = try ExplainFixture()
        let binary = try ListServerBinary.path()
        for (url, page, type) in [
            ("https://ads.example/allowed/x.js", "https://site.example/", "script"),
            ("https://tracker.example/t.js", "https://site.example/", "script"),
            ("https://cdn.example/banner.js", "https://www.carve.example/a", "image"),
        ] {
            let response = try await fixture.answer(ExplainFixture.query(url, page: page, type: type))
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.header("Cache-Control") == "no-store")
            // The server reads the set's provenance.txt, so deciding rules name their ABP lines.
            #expect(response.bodyText.contains(#""provenance":"complete""#), "\(url): \(response.bodyText.prefix(300))")
            let command = ListServerBinary.shell(
                "'\(binary)' explain '\(url)' --page '\(page)' --type \(type) --set '\(fixture.directory)' --json")
            #expect(command.status == 0, "\(command.output)")
            #expect(response.bodyText == command.output, "\(url): the endpoint and `listserver explain --json` differ")
        }
        // HEAD: the same head, no body. Other methods: 405.
        let target = ExplainFixture.query("https://ads.example/other.js", page: "https://site.example/", type: "script")
        let get = try fixture.get(target)
        let head = try fixture.get(target, method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.header("Content-Length") == get.header("Content-Length"))
        let post = try fixture.get(target, method: "POST")
        #expect(post.status == 405)
        #expect(post.header("Allow")?.contains("GET") == true)
    }

    @Test func aBrowserGetsAnEscapedPageWithAStrictPolicy() async throws {
        let fixture = try ExplainFixture()
        let target = ExplainFixture.query(
            "https://ads.example/other.js?q=\"><script>alert(1)</script>", page: "https://site.example/<b>",
            type: "script")
        let headers = [
            "Authorization": "Bearer \(ExplainFixture.token)",
            "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        ]
        let page = try await fixture.answer(target, headers: headers)
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.header("Cache-Control") == "no-store")
        let policy = try #require(page.header("Content-Security-Policy"))
        #expect(policy.contains("default-src 'none'") && !policy.contains("script-src"), "\(policy)")
        #expect(page.bodyText.contains("BLOCKED"))
        #expect(!page.bodyText.contains("<script") && !page.bodyText.contains("<b>"), "request text must be escaped")
        // The deciding rule's JSON is shown, its quotes escaped.
        #expect(
            page.bodyText.contains("{&quot;trigger&quot;:") && !page.bodyText.contains("{\"trigger\":"),
            "rule text must be escaped")
        // A client that takes anything gets JSON.
        let json = try fixture.get(
            target, headers: ["Authorization": "Bearer \(ExplainFixture.token)", "Accept": "*/*"])
        #expect(json.header("Content-Type") == "application/json")
    }

    @Test func withoutAnAdminTokenTheEndpointDoesNotExist() async throws {
        let fixture = try ExplainFixture(token: nil)
        let target = ExplainFixture.query("https://ads.example/other.js")
        for method in ["GET", "HEAD"] {
            #expect(try fixture.get(target, headers: [:], method: method).status == 404, "\(method)")
        }
        #expect(try fixture.get(target, headers: ["Authorization": "Bearer anything"]).status == 404)
        // Nothing was loaded either: still 404, never a 503 "loading".
        #expect(try fixture.get(target, headers: [:]).status == 404)
    }
}
