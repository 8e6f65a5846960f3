import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

/// A follower removes the signature of a manifest that has expired, as its primary does after a
/// publish, and keeps the current one: its public directory does not grow with every publish.
@Suite(.serialized) struct FollowerSignaturePruneTests {
    static func signatures(_ directory: String) -> Set<String> {
        Set(
            ((try? FileManager.default.contentsOfDirectory(atPath: directory + "/" + PublishedSignature.directoryName))
                ?? []).filter { $0.hasSuffix(".minisig") })
    }

    @Test func aFollowerPrunesTheSignatureOfAnExpiredManifest() async throws {
        // The first manifest is valid for 8 s only; the next one, with the same key, for an hour.
        let short = try SigningOrigin.signer(validity: 8)
        let long = ManifestSigner(key: short.key, validity: 3_600)
        let origin = SigningOrigin()
        let first = try origin.publish(short, tag: "one")
        let primary = try SignedSyncVarnishTests.RestartableOrigin(content: first.content)
        defer { primary.stop() }
        let scratch = ScratchDirectory("follower-prune")
        try FollowerSupport.writeFollowerConfig(
            scratch.sub("follower"), manifest: "http://127.0.0.1:\(primary.port)/manifest.json",
            keys: [short.key.publicKey.base64], interval: 0.2)
        let follower = try ListServerProcess(directory: scratch.sub("follower"))
        let publicDirectory = scratch.sub("follower/public")
        let firstName = PublishedSignature.name(forManifest: try #require(first.manifestSHA256))
        try #require(
            try await eventually(timeout: 6, interval: 0.05) {
                try RawHTTPResponse.get(port: follower.port, path: "/manifest.json").body
                    == first.content.manifest!.identity
            }, "the follower did not install the short-lived manifest before it expired")

        let second = try origin.publish(long, tag: "two")
        primary.server.install(second.content)
        let secondName = PublishedSignature.name(forManifest: try #require(second.manifestSHA256))
        try #require(
            try await eventually(timeout: 20, interval: 0.05) {
                try RawHTTPResponse.get(port: follower.port, path: "/manifest.json").body
                    == second.content.manifest!.identity
            })
        let file = { (name: String) in String(name.dropFirst(PublishedSignature.directoryName.count + 1)) }
        #expect(Self.signatures(publicDirectory).contains(file(secondName)))
        // Once the first manifest has expired, the follower's next poll (a 304) removes its signature:
        // first the file, then the set it serves, so the 404 is waited for too.
        let pruned = try await eventually(timeout: 30, interval: 0.1) {
            try !Self.signatures(publicDirectory).contains(file(firstName))
                && RawHTTPResponse.get(port: follower.port, path: "/" + firstName).status == 404
        }
        #expect(pruned, "the expired manifest's signature is still served: \(Self.signatures(publicDirectory))")
        #expect(Self.signatures(publicDirectory) == [file(secondName)])
        #expect(try RawHTTPResponse.get(port: follower.port, path: "/" + secondName).status == 200)
        #expect(follower.terminate() == 0)
    }
}
