import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

/// A following `listserver serve` refuses what a device refuses and keeps serving its last good
/// set, saying why in /status and /metrics; it serves on while the primary is down and catches up
/// when it returns; and it can itself be followed, with the key its /status shows.
@Suite(.serialized) struct FollowerRefusalTests {
    /// Waits until the follower's /status says `result`, and returns its `follow` object.
    static func waitForResult(_ port: Int, _ result: String, after attempt: String? = nil) async throws -> [String: Any]
    {
        var follow: [String: Any] = [:]
        _ = try await eventually(timeout: 20, interval: 0.1) {
            follow = try FollowerSupport.follow(port: port)
            return follow["lastResult"] as? String == result
                && (attempt == nil || (follow["lastAttemptAt"] as? String ?? "") > attempt!)
        }
        return follow
    }

    static func manifest(_ port: Int) throws -> [UInt8] {
        try RawHTTPResponse.get(port: port, path: "/manifest.json").body
    }

    @Test func badSignaturesRollbacksAndExpiredManifestsAreRefusedAndTheLastGoodSetStaysServed() async throws {
        let scenario = try await Scenario.start()
        defer { scenario.primary.stop() }
        try await scenario.aForeignKeyIsRefusedAndWritesNothing()
        try await scenario.aNewerSetIsTakenAndReplayingTheOlderIsARollback()
        try await scenario.anExpiredManifestIsRefusedAndCounted()
        try await scenario.theFollowerServesOnWhileThePrimaryIsDownAndCatchesUp()
        try await scenario.aFollowerOfTheFollowerServesTheSameSet()
        #expect(scenario.follower.terminate() == 0)
    }

    /// A primary serving sets signed by `keyA`, and a follower of it trusting `keyA` only, once the
    /// follower has installed the first set. Each step leaves the follower serving `served`.
    final class Scenario {
        let keyA: ManifestSigner
        let keyB: ManifestSigner
        let origin: SigningOrigin
        /// The first set, which the follower installs before any step and which a step replays.
        let first: SiteContent
        let primary: SignedSyncVarnishTests.RestartableOrigin
        let scratch = ScratchDirectory("follower-refusals")
        let follower: ListServerProcess
        /// The manifest the follower should be serving now.
        var served: [UInt8]
        /// The follower's last `follow` status object.
        var follow: [String: Any] = [:]

        private init(keyA: ManifestSigner, keyB: ManifestSigner, origin: SigningOrigin, first: SiteContent) throws {
            self.keyA = keyA
            self.keyB = keyB
            self.origin = origin
            self.first = first
            primary = try SignedSyncVarnishTests.RestartableOrigin(content: first)
            try FollowerSupport.writeFollowerConfig(
                scratch.sub("follower"), manifest: "http://127.0.0.1:\(primary.port)/manifest.json",
                keys: [keyA.key.publicKey.base64], interval: 0.2)
            follower = try ListServerProcess(directory: scratch.sub("follower"))
            served = first.manifest!.identity
        }

        static func start() async throws -> Scenario {
            let keyA = try SigningOrigin.signer()
            let origin = SigningOrigin()
            let first = try origin.publish(keyA, tag: "one")
            let scenario = try Scenario(
                keyA: keyA, keyB: try SigningOrigin.signer(), origin: origin, first: first.content)
            let installed = try await eventually(timeout: 20, interval: 0.1) {
                try manifest(scenario.follower.port) == scenario.served
            }
            let followState = (try? FollowerSupport.follow(port: scenario.follower.port)) ?? [:]
            try #require(installed, "the follower never installed the first set: \(followState)")
            return scenario
        }

        /// Publishes on the primary and waits for the follower's verdict on it.
        private func offer(_ content: SiteContent, expecting result: String, after attempt: String? = nil) async throws
        {
            primary.server.install(content)
            follow = try await waitForResult(follower.port, result, after: attempt)
            if result == "installed" { served = content.manifest!.identity }
            #expect(try manifest(follower.port) == served)
        }

        private var lastError: String { follow["lastError"] as? String ?? "" }

        func aForeignKeyIsRefusedAndWritesNothing() async throws {
            let good = FollowerSupport.servedFiles(scratch.sub("follower/public"))
            try await offer(try origin.publish(keyB, tag: "two").content, expecting: "refused")
            #expect(lastError.contains("\(keyB.key.keyID)"), "\(follow)")
            #expect(FollowerSupport.servedFiles(scratch.sub("follower/public")) == good, "a refused set writes nothing")
        }

        func aNewerSetIsTakenAndReplayingTheOlderIsARollback() async throws {
            try await offer(try origin.publish(keyA, tag: "three").content, expecting: "installed")
            try await offer(first, expecting: "refused")
            #expect(lastError.contains("generation"), "\(follow)")
        }

        /// Signed by the trusted key with a validity that already ran out; /metrics counts the refusals.
        func anExpiredManifestIsRefusedAndCounted() async throws {
            let expired = try origin.publish(
                try ManifestSigner(key: keyA.key, validity: 4), tag: "four", now: Date().addingTimeInterval(-100))
            try await offer(expired.content, expecting: "refused", after: follow["lastAttemptAt"] as? String)
            #expect(lastError.contains("expired"), "\(follow)")
            let metrics = String(
                decoding: try RawHTTPResponse.get(port: follower.port, path: "/metrics").body, as: UTF8.self)
            #expect(metrics.contains("listserver_follow_refusals_total{primary="), "\(metrics.suffix(600))")
            #expect(
                metrics.contains(
                    "listserver_follow_last_poll_ok{primary=\"http://127.0.0.1:\(primary.port)/manifest.json\",result=\"refused\"} 0"
                ))
            #expect((follow["refusals"] as? Int ?? 0) >= 3)
        }

        func theFollowerServesOnWhileThePrimaryIsDownAndCatchesUp() async throws {
            primary.stop()
            _ = try await waitForResult(follower.port, "failed")
            #expect(try RawHTTPResponse.get(port: follower.port, path: "/healthz").status == 200)
            #expect(try manifest(follower.port) == served)
            let third = try origin.publish(keyA, tag: "five")
            try primary.restart(serving: third.content)
            follow = try await waitForResult(follower.port, "installed")
            served = third.content.manifest!.identity
            #expect(try manifest(follower.port) == served)
            let status = try FollowerSupport.status(port: follower.port)
            #expect(status["followLagGenerations"] as? Int == 0, "\(status)")
        }

        /// A follower of the follower, trusting the key the follower's /status shows.
        func aFollowerOfTheFollowerServesTheSameSet() async throws {
            let shownKey = try FollowerSupport.publicKey(port: follower.port)
            #expect(shownKey == keyA.key.publicKey.base64)
            try FollowerSupport.writeFollowerConfig(
                scratch.sub("second"), manifest: "http://127.0.0.1:\(follower.port)/manifest.json",
                keys: [shownKey], interval: 0.2)
            let second = try ListServerProcess(directory: scratch.sub("second"))
            let chained = try await eventually(timeout: 20, interval: 0.1) { [served] in
                try manifest(second.port) == served
            }
            #expect(chained, "a follower of a follower serves the same set")
            let names = FollowerSupport.servedNames(FollowerSupport.servedFiles(scratch.sub("second/public")))
            // Against the first follower (same http settings; this test's primary caches the manifest for 1 s).
            let differences = try FollowerSupport.headerDifferences(
                names: names, primary: follower.port, follower: second.port)
            #expect(differences.isEmpty, "\(differences)")
            #expect(second.terminate() == 0)
        }
    }
}
