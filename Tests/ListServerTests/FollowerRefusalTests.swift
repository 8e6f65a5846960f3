import Foundation
import Testing
import TestSupport
@testable import ListOrigin

/// A following `listserver serve` refuses what a device refuses and keeps serving its last good
/// set, saying why in /status and /metrics; it serves on while the primary is down and catches up
/// when it returns; and it can itself be followed, with the key its /status shows.
@Suite(.serialized) struct FollowerRefusalTests {
    /// Waits until the follower's /status says `result`, and returns its `follow` object.
    static func waitForResult(_ port: Int, _ result: String, after attempt: String? = nil) async throws -> [String: Any] {
        var follow: [String: Any] = [:]
        _ = try await eventually(timeout: 20, interval: 0.1) {
            follow = try FollowerSupport.follow(port: port)
            return follow["lastResult"] as? String == result && (attempt == nil || (follow["lastAttemptAt"] as? String ?? "") > attempt!)
        }
        return follow
    }

    static func manifest(_ port: Int) throws -> [UInt8] { try RawHTTPResponse.get(port: port, path: "/manifest.json").body }

    @Test func badSignaturesRollbacksAndExpiredManifestsAreRefusedAndTheLastGoodSetStaysServed() async throws {
        let keyA = try SignedSyncTests.signer()
        let keyB = try SignedSyncTests.signer()
        let origin = SignedSyncTests.Origin()
        let first = try origin.publish(keyA, tag: "one")
        let primary = try SignedSyncVarnishTests.RestartableOrigin(content: first.content)
        defer { primary.stop() }
        let scratch = ScratchDirectory("follower-refusals")
        try FollowerSupport.writeFollowerConfig(scratch.sub("follower"), manifest: "http://127.0.0.1:\(primary.port)/manifest.json",
                                                keys: [keyA.key.publicKey.base64], interval: 0.2)
        let follower = try ServeTests.ServerProcess(directory: scratch.sub("follower"))
        let installed = try await eventually(timeout: 20, interval: 0.1) { try Self.manifest(follower.port) == first.content.manifest!.identity }
        let followState = (try? FollowerSupport.follow(port: follower.port)) ?? [:]
        try #require(installed, "the follower never installed the first set: \(followState)")
        let good = FollowerSupport.servedFiles(scratch.sub("follower/public"))

        // Signed by a key the follower does not trust.
        let foreign = try origin.publish(keyB, tag: "two")
        primary.server.install(foreign.content)
        var follow = try await Self.waitForResult(follower.port, "refused")
        #expect((follow["lastError"] as? String ?? "").contains("\(keyB.key.keyID)"), "\(follow)")
        #expect(try Self.manifest(follower.port) == first.content.manifest!.identity)
        #expect(FollowerSupport.servedFiles(scratch.sub("follower/public")) == good, "a refused set writes nothing")

        // A newer set by the trusted key is taken; replaying the older one is a rollback.
        let second = try origin.publish(keyA, tag: "three")
        primary.server.install(second.content)
        _ = try await Self.waitForResult(follower.port, "installed")
        #expect(try Self.manifest(follower.port) == second.content.manifest!.identity)
        primary.server.install(first.content)
        follow = try await Self.waitForResult(follower.port, "refused")
        #expect((follow["lastError"] as? String ?? "").contains("generation"), "\(follow)")
        #expect(try Self.manifest(follower.port) == second.content.manifest!.identity)

        // Expired: signed by the trusted key with a validity that already ran out.
        let expired = try origin.publish(try ManifestSigner(key: keyA.key, validity: 4), tag: "four", now: Date().addingTimeInterval(-100))
        primary.server.install(expired.content)
        follow = try await Self.waitForResult(follower.port, "refused", after: follow["lastAttemptAt"] as? String)
        #expect((follow["lastError"] as? String ?? "").contains("expired"), "\(follow)")
        #expect(try Self.manifest(follower.port) == second.content.manifest!.identity)
        let metrics = String(decoding: try RawHTTPResponse.get(port: follower.port, path: "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("listserver_follow_refusals_total{primary="), "\(metrics.suffix(600))")
        #expect(metrics.contains("listserver_follow_last_poll_ok{primary=\"http://127.0.0.1:\(primary.port)/manifest.json\",result=\"refused\"} 0"))
        #expect((follow["refusals"] as? Int ?? 0) >= 3)

        // The primary goes down: the follower serves on; it returns with a newer set: the follower catches up.
        primary.stop()
        _ = try await Self.waitForResult(follower.port, "failed")
        #expect(try RawHTTPResponse.get(port: follower.port, path: "/healthz").status == 200)
        #expect(try Self.manifest(follower.port) == second.content.manifest!.identity)
        let third = try origin.publish(keyA, tag: "five")
        try primary.restart(serving: third.content)
        _ = try await Self.waitForResult(follower.port, "installed")
        #expect(try Self.manifest(follower.port) == third.content.manifest!.identity)
        let status = try FollowerSupport.status(port: follower.port)
        #expect(status["followLagGenerations"] as? Int == 0, "\(status)")

        // A follower of the follower, trusting the key the follower's /status shows.
        let shownKey = try FollowerSupport.publicKey(port: follower.port)
        #expect(shownKey == keyA.key.publicKey.base64)
        try FollowerSupport.writeFollowerConfig(scratch.sub("second"), manifest: "http://127.0.0.1:\(follower.port)/manifest.json",
                                                keys: [shownKey], interval: 0.2)
        let second2 = try ServeTests.ServerProcess(directory: scratch.sub("second"))
        let chained = try await eventually(timeout: 20, interval: 0.1) { try Self.manifest(second2.port) == third.content.manifest!.identity }
        #expect(chained, "a follower of a follower serves the same set")
        let names = FollowerSupport.servedNames(FollowerSupport.servedFiles(scratch.sub("second/public")))
        // Against the first follower (same http settings; this test's primary caches the manifest for 1 s).
        let differences = try FollowerSupport.headerDifferences(names: names, primary: follower.port, follower: second2.port)
        #expect(differences.isEmpty, "\(differences)")
        #expect(second2.terminate() == 0)
        #expect(follower.terminate() == 0)
    }
}
