import Converter
import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginConfig
@testable import OriginServe
@testable import OriginStore

/// `/explain` is for operators: the status page says how to turn it on when no admin token is
/// configured, and a client that keeps failing the token is refused (429) for a while, on
/// `/explain` and `POST /admin/refresh` alike, with bounded memory.
@Suite struct ExplainAccessTests {
    static let token = "access-s3cret"
    static let explain = "/explain?url=https%3A%2F%2Fads.example%2Fx.js"
    static let html = ["Accept": "text/html"]

    /// A clock the test moves by hand.
    final class ManualClock: @unchecked Sendable {
        private let lock = NSLock()
        private var seconds = 1_000.0
        var now: Double { lock.withLock { seconds } }
        func advance(_ by: Double) { lock.withLock { seconds += by } }
    }

    @Test func theStatusPageSaysHowToEnableExplainWhenItIsOff() throws {
        let off = try ServerHarness(configure: { $0.adminTokenEnvironmentVariable = "MY_ADMIN_TOKEN" })
        defer { off.stop() }
        let page = try off.request("/status", headers: Self.html).bodyText
        #expect(
            page.contains("MY_ADMIN_TOKEN") && page.contains("off on this server"),
            "the page must name the variable to set")
        #expect(!page.contains("action=\"explain\""), "no form for an endpoint that does not exist")
        #expect(try off.request(Self.explain).status == 404)

        let on = try ServerHarness(admin: AdminCredential(token: Self.token))
        defer { on.stop() }
        let withToken = try on.request("/status", headers: Self.html).bodyText
        #expect(withToken.contains("action=\"explain\""))
        #expect(!withToken.contains("off on this server"))
    }

    @Test func aClientThatKeepsFailingTheTokenIsRefusedUntilItsWindowPasses() throws {
        let clock = ManualClock()
        let limiter = AuthFailureLimiter(maxFailures: 5, windowSeconds: 60, clock: { clock.now })
        let harness = try ServerHarness(admin: AdminCredential(token: Self.token), authLimiter: limiter)
        defer { harness.stop() }
        let wrong = ["Authorization": "Bearer nope"]
        let right = ["Authorization": "Bearer \(Self.token)"]
        for attempt in 1...5 {
            #expect(try harness.request(Self.explain, headers: wrong).status == 401, "attempt \(attempt)")
        }
        // Over budget: refused before the token is looked at, the right one included, on both endpoints.
        let refused = try harness.request(Self.explain, headers: wrong)
        #expect(refused.status == 429)
        #expect(refused.header("Retry-After") == "60")
        #expect(refused.header("Cache-Control") == "no-store")
        #expect(try harness.request(Self.explain, headers: right).status == 429)
        #expect(try harness.request("/admin/refresh", method: "POST", headers: right).status == 429)
        clock.advance(30)
        #expect(try harness.request(Self.explain, headers: wrong).header("Retry-After") == "30")
        // The window passes: the right token works again (503 while no engine is loaded: no set here to explain from).
        clock.advance(31)
        let allowed = try harness.request(Self.explain, headers: right)
        #expect(allowed.status != 429 && allowed.status != 401, "\(allowed.status)")
        #expect(try harness.request("/admin/refresh", method: "POST", headers: right).status == 202)
        // Failures in a new window count from zero.
        #expect(try harness.request("/admin/refresh", method: "POST", headers: wrong).status == 401)
    }

    @Test func theLimiterTracksABoundedNumberOfAddresses() {
        let clock = ManualClock()
        let limiter = AuthFailureLimiter(maxFailures: 3, windowSeconds: 60, maxClients: 100, clock: { clock.now })
        for client in 0..<10_000 {
            limiter.recordFailure("10.0.\(client / 256).\(client % 256)")
        }
        #expect(limiter.trackedClients <= 100)
        // Addresses beyond the table share one entry, which is over budget: spraying addresses does not escape the limit.
        #expect(limiter.refusal(for: "10.0.200.1") != nil)
        #expect(limiter.refusal(for: "192.0.2.7") != nil)
        // A tracked address under budget is not refused.
        #expect(limiter.refusal(for: "10.0.0.0") == nil)
        // Once the window has passed, expired entries make room again.
        clock.advance(61)
        limiter.recordFailure("198.51.100.1")
        #expect(limiter.refusal(for: "198.51.100.1") == nil)
        #expect(limiter.trackedClients <= 100)
    }
}

/// The explain engine of a set is released when another set is installed, not at the next
/// explain call (the full lists' engine is hundreds of MB).
@Suite(.serialized) struct ExplainEngineReleaseTests {
    @Test func installingANewSetReleasesTheOldEngine() async throws {
        let fixture = try ExplainFixture()
        let target = ExplainFixture.query("https://ads.example/other.js", type: "script")
        #expect(try await fixture.answer(target).status == 200)
        let cache = fixture.server.server.explainCache
        #expect(cache.holdsEngine)
        // Installing the same set again keeps it.
        fixture.server.server.install(fixture.server.content)
        #expect(cache.holdsEngine)
        fixture.server.server.install(try ServerHarness.sampleContent(generation: "next"))
        #expect(!cache.holdsEngine, "the previous set's engine must go when a new set is installed")
    }

    /// Each set keeps its own engine: explaining one set and then another does not reload the
    /// first, and a new generation of one set drops that set's engine only.
    @Test func eachSetKeepsItsEngineUntilItsOwnGenerationChanges() async throws {
        let fixture = try ExplainFixture()
        func publish(_ abp: String, into directory: String) throws -> SiteContent {
            let output = try ListConverter().convert([FilterListSource(id: "small", bytes: Array(abp.utf8))])
            let publisher = Publisher(
                writer: SetWriter(directory: directory), gracePeriod: 3600, gate: nil, log: LogLines().log)
            var history: [PersistentState.PublishRecord] = []
            return try publisher.publish(output, over: nil, history: &history, now: Date()).published.content
        }
        let server = fixture.server.server
        server.describeSets(
            [
                ListSetDefinition(name: "default", upstreams: ["small"]),
                ListSetDefinition(name: "de", upstreams: ["small"]),
            ], defaultSet: "default")
        server.install(
            try publish("[Adblock Plus 2.0]\n||werbung.example^\n", into: fixture.scratch.sub("public/sets/de")),
            set: "de")
        let regional = ExplainFixture.query("https://werbung.example/a.js", type: "script")
        func verdict(_ response: HTTPTestResponse) -> String? {
            let object = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
            return (object["explanation"] as? [String: Any])?["verdict"] as? String
        }
        #expect(verdict(try await fixture.answer(regional + "&set=de")) == "blocked")
        #expect(verdict(try await fixture.answer(regional)) != "blocked", "the default set has no such rule")
        let cache = server.explainCache
        #expect(cache.holdsEngine(set: nil) && cache.holdsEngine(set: "de"))
        // Both loaded: each answers at once, in any order, without a load in between.
        for target in [regional + "&set=de", regional, regional + "&set=de", regional + "&set=default"] {
            let response = try fixture.get(target)
            #expect(response.status == 200, "\(target) answered \(response.status) instead of from its kept engine")
        }
        // A new generation of de drops de's engine and keeps the default set's.
        server.install(
            try publish("[Adblock Plus 2.0]\n||reklame.example^\n", into: fixture.scratch.sub("public/sets/de")),
            set: "de")
        #expect(!cache.holdsEngine(set: "de"))
        #expect(cache.holdsEngine(set: nil))
        #expect(try fixture.get(regional).status == 200)
        // A set no longer described is no longer served, and its engine goes.
        _ = try await fixture.answer(regional + "&set=de")
        server.describeSets([ListSetDefinition(name: "default", upstreams: ["small"])], defaultSet: "default")
        #expect(!cache.holdsEngine(set: "de"))
        #expect(try fixture.get(regional + "&set=de").status == 404)
    }
}
