import Foundation
import ListSync
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginConfig
@testable import OriginServe
@testable import OriginStore

#if canImport(Glibc)
    import Glibc
#endif

/// Signed manifests through a real CDN edge (Varnish with scripts/varnish/cdn.vcl, in front of the real
/// HTTP server on loopback): a foreign key's signature, an expired manifest and an unsigned one are
/// refused, by the client and by the `listserver sync` executable (exit 1 and the reason), with the
/// device store byte for byte intact; a key rotation across a server restart is followed. One
/// Varnish and one origin port serve every case.
@Suite(.serialized) struct SignedSyncVarnishTests {
    /// The real HTTP server on a fixed loopback port, so it can be restarted behind the same edge.
    final class RestartableOrigin {
        private(set) var server: HTTPServer
        let port: Int

        init(content: SiteContent) throws {
            server = Self.make(port: 0)
            port = try server.start()
            server.install(content)
        }

        private static func make(port: Int) -> HTTPServer {
            var http = Configuration.HTTP()
            http.manifestMaxAgeSeconds = 1
            http.manifestStaleWhileRevalidateSeconds = 0
            return HTTPServer(
                configuration: http, listen: Configuration.Listen(address: "127.0.0.1", port: port),
                status: StatusBoard(),
                log: Log(label: "varnish-origin", minimum: .warning, sink: { _ in }), admin: nil)
        }

        /// Stops the server and starts a new one on the same port, serving `content`.
        func restart(serving content: SiteContent) throws {
            server.shutdown(grace: 2)
            server = Self.make(port: port)
            _ = try server.start()
            server.install(content)
        }

        func stop() { server.shutdown(grace: 2) }
    }

    /// Waits (bounded) until the edge hands out `content`'s manifest.
    static func waitForEdge(_ cdn: VarnishCDN, toServe content: SiteContent) async throws {
        let manifest = try #require(content.manifest).identity
        let arrived = try await eventually(timeout: 15, interval: 0.2) {
            try RawHTTPResponse.get(port: cdn.port, path: "/manifest.json").body == manifest
        }
        try #require(arrived, "the edge never served the new manifest")
    }

    /// `listserver sync` (the command's entry point, in process): its exit status and what it wrote
    /// to stderr, caught by pointing descriptor 2 at a file while it runs.
    static func syncCommand(_ manifestURL: URL, store: String, keys: [MinisignPublicKey]) throws -> (
        status: Int32, output: String
    ) {
        let outputPath = store + ".sync-stderr"
        let file = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw VarnishCDN.Failure(description: "cannot create \(outputPath): errno \(errno)") }
        defer { unlink(outputPath) }
        let savedStderr = dup(2)
        dup2(file, 2)
        close(file)
        let status = ListServerCommandLine.run(
            ["sync", "--manifest", manifestURL.absoluteString, "--dir", store, "--timeout", "10"]
                + keys.flatMap { ["--trusted-key", $0.base64] })
        dup2(savedStderr, 2)
        close(savedStderr)
        return (status, (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
    }

    @Test func throughVarnishForeignKeysExpiryAndUnsignedSetsAreRefusedAndARotationAcrossARestartIsFollowed()
        async throws
    {
        let keyA = try SigningOrigin.signer()
        let keyB = try SigningOrigin.signer()
        let keyC = try SigningOrigin.signer()
        let origin = SigningOrigin()
        let first = try origin.publish(keyA, tag: "one")
        let server = try RestartableOrigin(content: first.content)
        defer { server.stop() }
        let cdn = try VarnishCDN(originPort: server.port)
        defer { cdn.stop() }
        let manifestURL = URL(string: cdn.baseURL + "/manifest.json")!
        let storePath = origin.scratch.sub("device")
        let trusted = [keyA.key.publicKey, keyC.key.publicKey]
        let client = SyncClient(
            manifestURL: manifestURL, store: SyncStore(directory: URL(fileURLWithPath: storePath)),
            trust: try ManifestTrust(trustedKeys: trusted), options: .init(timeout: 10))
        #expect(try await client.sync().outcome == .updated)
        let held = SigningOrigin.snapshot(storePath)
        let heldGeneration = try #require(first.manifest.generation)

        func serve(_ content: SiteContent) async throws {
            server.server.install(content)
            try await Self.waitForEdge(cdn, toServe: content)
        }
        /// The client refuses with `expected`, the executable exits 1 naming `reason`, the store is untouched.
        func expectRefused(_ label: String, reason: String, _ expected: (ManifestTrustError) -> Bool) async throws {
            let error = await SigningOrigin.refusal(client)
            #expect(error.map(expected) == true, "\(label): \(String(describing: error))")
            #expect(SigningOrigin.snapshot(storePath) == held, "\(label): the device's set changed")
            let command = try Self.syncCommand(manifestURL, store: storePath, keys: trusted)
            #expect(command.status == 1, "\(label): listserver sync exited \(command.status): \(command.output)")
            #expect(command.output.contains(reason), "\(label): \(command.output)")
            #expect(SigningOrigin.snapshot(storePath) == held, "\(label): listserver sync changed the device's set")
        }

        // A signature by a key the device does not trust.
        try await serve(try origin.publish(keyB, tag: "two").content)
        try await expectRefused("foreign key", reason: "failed signature verification") {
            if case .badSignature(_, let reason) = $0 { return reason.contains("\(keyB.key.keyID)") }
            return false
        }

        // Signed by the trusted key, but its validity ran out.
        let expired = try origin.publish(
            try ManifestSigner(key: keyA.key, validity: 4), tag: "three", now: Date().addingTimeInterval(-100))
        try await serve(expired.content)
        try await expectRefused("expired", reason: "expired at") {
            if case .expired = $0 { return true }
            return false
        }

        // No signature at all.
        let unsigned = try origin.publish(nil, tag: "four")
        try await serve(unsigned.content)
        try await expectRefused("unsigned", reason: "is not signed") {
            if case .unsigned = $0 { return true }
            return false
        }

        // Rotation: the origin restarts with key C (trusted beside A), reading its set back from disk.
        // (The refusals above were not served through the edge into the device; only this is accepted.)
        try origin.restart()
        let rotated = try origin.publish(keyC, tag: "five")
        try server.restart(serving: rotated.content)
        try await Self.waitForEdge(cdn, toServe: rotated.content)
        #expect(try await client.sync().outcome == .updated)
        let state = try #require(try SyncStore(directory: URL(fileURLWithPath: storePath)).loadState())
        let rotatedGeneration = try #require(rotated.manifest.generation)
        #expect(state.manifest.generation == rotatedGeneration)
        #expect(rotatedGeneration > heldGeneration, "a new key does not restart the generation")
        #expect(SigningOrigin.snapshot(storePath) != held)
    }
}
