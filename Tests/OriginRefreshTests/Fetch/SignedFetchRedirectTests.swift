import Foundation
import ListSync
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

/// The device's capped reads (manifest and signature; libcurl on Linux) follow the same redirect
/// policy as its list files and the origin's fetcher: a moved manifest or signature is followed, a
/// loop is refused with the reason, and the store keeps its set.
@Suite(.serialized) struct SignedFetchRedirectTests {
    @Test func aMovedManifestAndSignatureAreFollowedAndALoopIsRefused() async throws {
        let signer = try SigningOrigin.signer()
        let origin = SigningOrigin()
        let first = try origin.publish(signer, tag: "one")
        let server = try UpstreamServer()
        defer { server.stop() }
        let publicDirectory = origin.scratch.sub("public")
        server.serveDirectory(publicDirectory)
        let manifest = try #require(FileManager.default.contents(atPath: publicDirectory + "/manifest.json"))
        let signaturePath = "/" + PublishedSignature.name(forManifest: try #require(first.manifestSHA256))
        let signature = try #require(FileManager.default.contents(atPath: publicDirectory + signaturePath))
        // The manifest moved (302, same directory); the signature moved twice (301 then 307).
        server.set("/manifest.json", .redirect(location: "/manifest-moved.json"))
        server.set("/manifest-moved.json", .serve(body: Array(manifest)))
        server.set(signaturePath, .redirect(location: "/sig/one", status: 301))
        server.set("/sig/one", .redirect(location: server.url("/sig/two"), status: 307))
        server.set("/sig/two", .serve(body: Array(signature)))

        let storePath = origin.scratch.sub("device")
        let client = SyncClient(
            manifestURL: URL(string: server.url("/manifest.json"))!,
            store: SyncStore(directory: URL(fileURLWithPath: storePath)),
            trust: try ManifestTrust(trustedKeys: [signer.key.publicKey]), options: .init(timeout: 20))
        #expect(try await client.sync().outcome == .updated)
        #expect(server.requests(for: "/manifest-moved.json").count == 1)
        #expect(server.requests(for: "/sig/two").count == 1)
        let held = SigningOrigin.snapshot(storePath)

        // A new set whose signature redirects in a loop: refused after the policy's redirects.
        let second = try origin.publish(signer, tag: "two")
        server.serveDirectory(publicDirectory)
        server.set("/manifest.json", .redirect(location: "/manifest-moved.json"))
        server.set(
            "/manifest-moved.json",
            .serve(body: Array(try #require(FileManager.default.contents(atPath: publicDirectory + "/manifest.json")))))
        let loopPath = "/" + PublishedSignature.name(forManifest: try #require(second.manifestSHA256))
        server.set(loopPath, .redirect(location: "/loop"))
        server.set("/loop", .redirect(location: loopPath))
        do {
            _ = try await client.sync()
            Issue.record("a signature behind a redirect loop must not sync")
        } catch let error as SyncError {
            guard case .transport(let url, let reason) = error else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
            #expect(url == server.url(loopPath))
            #expect(reason.contains("redirects"), "\(reason)")
        }
        #expect(server.requests(for: loopPath).count + server.requests(for: "/loop").count == 6)
        #expect(SigningOrigin.snapshot(storePath) == held)
    }
}
