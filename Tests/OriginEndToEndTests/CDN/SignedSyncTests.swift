import Converter
import Foundation
import ListSync
import ManifestSigning
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

/// Signed manifests, the device half: `SyncClient` against the real HTTP server on 127.0.0.1, serving sets
/// the real publisher signed. Each attack is refused with its reason and the device store stays
/// byte for byte what it was; a key rotation and an explicitly allowed unsigned set are accepted.
@Suite(.serialized) struct SignedSyncTests {

    /// `set`'s content with one byte of the manifest changed and the genuine signature served under
    /// the changed manifest's hash (what a cache that rewrites manifests would do).
    static func tampered(_ set: PublishedSet) throws -> SiteContent {
        var content = set.content
        var bytes = try #require(content.manifest).identity
        let digit = try #require(bytes.lastIndex(of: UInt8(ascii: "2")))
        bytes[digit] = UInt8(ascii: "3")
        let hash = SHA256Digest.hex(of: bytes)
        content.manifest = PublishedSet.manifestEntry(bytes, sha256: hash, lastModified: Date())
        content.signatures[PublishedSignature.name(forManifest: hash)] =
            set.content.signatures[PublishedSignature.name(forManifest: try #require(set.manifestSHA256))]
        return content
    }

    @Test func aDeviceRefusesTamperingForeignKeysRollbackExpiryAndUnsignedSetsAndFollowsARotation() async throws {
        let device = try await Device.start()
        defer { device.server.stop() }
        try await device.refusesATamperedManifest()
        try await device.refusesAKeyItDoesNotTrust()
        try await device.takesANewerSetAndRefusesAReplayedOlderOne()
        try await device.refusesAnExpiredManifest()
        try await device.refusesAnUnsignedSetUnlessToldToAcceptOne()
        try await device.followsARotationToAnotherTrustedKey()
    }

    /// A device trusting keys A and C, synced once from an origin publishing with A. Every refusal
    /// must leave its store byte for byte as `held`.
    final class Device {
        let keyA: ManifestSigner
        let keyB: ManifestSigner
        let keyC: ManifestSigner
        let origin = SigningOrigin()
        let first: PublishedSet
        let server: ServerHarness
        let manifestURL: URL
        let storePath: String
        let client: SyncClient
        /// The store as the last accepted sync left it.
        var held: [String: Data] = [:]

        private init() throws {
            keyA = try SigningOrigin.signer()
            keyB = try SigningOrigin.signer()
            keyC = try SigningOrigin.signer()
            first = try origin.publish(keyA, tag: "one")
            server = try ServerHarness(content: first.content)
            manifestURL = URL(string: "http://127.0.0.1:\(server.port)/manifest.json")!
            storePath = origin.scratch.sub("device")
            let trusted = try ManifestTrust(trustedKeys: [keyA.key.publicKey, keyC.key.publicKey])
            client = SyncClient(
                manifestURL: manifestURL, store: SyncStore(directory: URL(fileURLWithPath: storePath)), trust: trusted,
                options: .init(timeout: 10))
        }

        static func start() async throws -> Device {
            let device = try Device()
            #expect(try await device.client.sync().outcome == .updated)
            device.held = SigningOrigin.snapshot(device.storePath)
            return device
        }

        /// Serves `content` and returns the device's refusal of it (nil: it was not refused).
        private func offer(_ content: SiteContent) async -> ManifestTrustError? {
            server.server.install(content)
            let refusal = await SigningOrigin.refusal(client)
            #expect(SigningOrigin.snapshot(storePath) == held, "a refusal must leave the store as it was")
            return refusal
        }

        /// One byte of the manifest changed, the genuine signature served at the new hash.
        func refusesATamperedManifest() async throws {
            if case .badSignature = await offer(try tampered(first)) {
            } else {
                Issue.record("a tampered manifest must fail verification")
            }
        }

        func refusesAKeyItDoesNotTrust() async throws {
            if case .badSignature(_, let reason) = await offer(try origin.publish(keyB, tag: "two").content) {
                #expect(reason.contains("\(keyB.key.keyID)"), "\(reason)")
            } else {
                Issue.record("another key's signature must be refused")
            }
        }

        /// A newer set by the trusted key is taken; replaying the older one afterwards is a rollback,
        /// and `listserver sync` says so and exits non-zero.
        func takesANewerSetAndRefusesAReplayedOlderOne() async throws {
            server.server.install(try origin.publish(keyA, tag: "three").content)
            #expect(try await client.sync().outcome == .updated)
            held = SigningOrigin.snapshot(storePath)
            if case .rollback(_, let generation, let heldGeneration) = await offer(first.content) {
                #expect(generation < heldGeneration)
            } else {
                Issue.record("a replayed older manifest must be refused")
            }
            #expect(
                ListServerCommandLine.run([
                    "sync", "--manifest", manifestURL.absoluteString, "--dir", storePath,
                    "--trusted-key", keyA.key.publicKey.base64,
                ]) == 1)
            #expect(SigningOrigin.snapshot(storePath) == held)
        }

        /// Signed by the trusted key with a validity that already ran out.
        func refusesAnExpiredManifest() async throws {
            let expired = try origin.publish(
                try ManifestSigner(key: keyA.key, validity: 4), tag: "four", now: Date().addingTimeInterval(-100))
            if case .expired = await offer(expired.content) {
            } else {
                Issue.record("an expired manifest must be refused")
            }
        }

        func refusesAnUnsignedSetUnlessToldToAcceptOne() async throws {
            let unsigned = try origin.publish(nil, tag: "five")
            #expect(unsigned.content.signatures[PublishedSignature.name(forManifest: unsigned.manifestSHA256!)] == nil)
            if case .unsigned = await offer(unsigned.content) {
            } else {
                Issue.record("an unsigned manifest must be refused")
            }
            let lenient = SyncClient(
                manifestURL: manifestURL,
                store: SyncStore(directory: URL(fileURLWithPath: origin.scratch.sub("lenient"))),
                trust: try ManifestTrust(trustedKeys: [keyA.key.publicKey], allowUnsigned: true),
                options: .init(timeout: 10))
            #expect(try await lenient.sync().outcome == .updated)
        }

        /// The origin switches to key C, which the device trusts beside A (over the unsigned set: the
        /// generation continues from the signatures still published).
        func followsARotationToAnotherTrustedKey() async throws {
            let rotated = try origin.publish(keyC, tag: "six")
            server.server.install(rotated.content)
            #expect(try await client.sync().outcome == .updated)
            let state = try #require(try SyncStore(directory: URL(fileURLWithPath: storePath)).loadState())
            #expect(state.manifest.generation == rotated.manifest.generation)
        }
    }

    /// A device that took an unsigned set (no generation) with `allowUnsigned` moves on to a signed
    /// one: nothing to roll back from. The reverse: a device holding a signed set refuses a later
    /// unsigned one, unless it allows unsigned sets, which then gives up rollback protection.
    @Test func anUnsignedSetGivesWayToASignedOneAndASignedDeviceTakesUnsignedOnlyWhenAllowed() async throws {
        let key = try SigningOrigin.signer()
        let origin = SigningOrigin()
        let unsigned = try origin.publish(nil, tag: "one")
        #expect(unsigned.manifest.generation == nil)
        let server = try ServerHarness(content: unsigned.content)
        defer { server.stop() }
        let manifestURL = URL(string: "http://127.0.0.1:\(server.port)/manifest.json")!
        func device(_ name: String, allowUnsigned: Bool) throws -> (client: SyncClient, path: String) {
            let path = origin.scratch.sub(name)
            let trust = try ManifestTrust(trustedKeys: [key.key.publicKey], allowUnsigned: allowUnsigned)
            return (
                SyncClient(
                    manifestURL: manifestURL, store: SyncStore(directory: URL(fileURLWithPath: path)), trust: trust,
                    options: .init(timeout: 10)), path
            )
        }
        func heldGeneration(_ path: String) throws -> Int? {
            try #require(try SyncStore(directory: URL(fileURLWithPath: path)).loadState()).manifest.generation
        }
        let lenient = try device("lenient", allowUnsigned: true)
        #expect(try await lenient.client.sync().outcome == .updated)
        #expect(try heldGeneration(lenient.path) == nil)

        let signed = try origin.publish(key, tag: "two")
        server.server.install(signed.content)
        #expect(
            try await lenient.client.sync().outcome == .updated, "a signed set after an unsigned one is no rollback")
        #expect(try heldGeneration(lenient.path) == signed.manifest.generation)
        let strict = try device("strict", allowUnsigned: false)
        #expect(try await strict.client.sync().outcome == .updated)

        let later = try origin.publish(nil, tag: "three")
        server.server.install(later.content)
        let held = SigningOrigin.snapshot(strict.path)
        if case .unsigned = await SigningOrigin.refusal(strict.client) {
        } else {
            Issue.record("a device that pins a key refuses a later unsigned set")
        }
        #expect(SigningOrigin.snapshot(strict.path) == held)
        #expect(
            try await lenient.client.sync().outcome == .updated,
            "allowUnsigned takes a later unsigned set (it carries no generation)")
        #expect(try heldGeneration(lenient.path) == nil)
    }

    /// The same checks through a real CDN (Varnish, scripts/varnish/cdn.vcl): the signature travels
    /// through the edge beside its manifest, and a replayed or tampered manifest the edge hands out
    /// is still refused, the store intact.
    @Test func throughVarnishARolledBackOrTamperedManifestIsRefused() async throws {
        let keyA = try SigningOrigin.signer()
        let origin = SigningOrigin()
        let first = try origin.publish(keyA, tag: "one")
        let server = try ServerHarness(
            configure: {
                $0.manifestMaxAgeSeconds = 1
                $0.manifestStaleWhileRevalidateSeconds = 0
            }, content: first.content)
        defer { server.stop() }
        let cdn = try VarnishCDN(originPort: server.port)
        defer { cdn.stop() }
        let manifestURL = URL(string: cdn.baseURL + "/manifest.json")!
        let storePath = origin.scratch.sub("device")
        let client = SyncClient(
            manifestURL: manifestURL, store: SyncStore(directory: URL(fileURLWithPath: storePath)),
            trust: try ManifestTrust(trustedKeys: [keyA.key.publicKey]), options: .init(timeout: 10))
        #expect(try await client.sync().outcome == .updated)

        func serve(_ content: SiteContent) async throws {
            server.server.install(content)
            try await SignedSyncVarnishTests.waitForEdge(cdn, toServe: content)
        }
        let second = try origin.publish(keyA, tag: "two")
        try await serve(second.content)
        #expect(try await client.sync().outcome == .updated)
        let held = SigningOrigin.snapshot(storePath)

        try await serve(first.content)
        if case .rollback = await SigningOrigin.refusal(client) {
        } else {
            Issue.record("a replayed older manifest through the CDN must be refused")
        }
        #expect(SigningOrigin.snapshot(storePath) == held)

        try await serve(try Self.tampered(second))
        if case .badSignature = await SigningOrigin.refusal(client) {
        } else {
            Issue.record("a tampered manifest through the CDN must be refused")
        }
        #expect(SigningOrigin.snapshot(storePath) == held)
    }
}
