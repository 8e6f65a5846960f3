import Foundation
import ListSync
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

/// The manifest and its signature are read with a size cap that stops the transfer as
/// the bytes arrive. A loopback origin (`UpstreamServer`) serves a real signed set, then answers the signature (or the
/// manifest) with a body that never ends; the device stops reading long before the origin's bound,
/// says why, and keeps its set byte for byte.
@Suite(.serialized) struct SignedFetchCapTests {
    /// 256 MiB: what "forever" means for an endless reply, so it ends by itself.
    static let bound = 256 << 20

    static func sync(_ client: SyncClient) async -> SyncError? {
        do {
            _ = try await client.sync()
            Issue.record("the sync must fail")
            return nil
        } catch let error as SyncError {
            return error
        } catch {
            Issue.record("expected a SyncError, got \(error)")
            return nil
        }
    }

    @Test func anEndlessOrOversizedSignatureOrManifestIsCutOffWhileStreaming() async throws {
        let signer = try SigningOrigin.signer()
        let origin = SigningOrigin()
        let first = try origin.publish(signer, tag: "one")
        let server = try UpstreamServer()
        defer { server.stop() }
        server.serveDirectory(origin.scratch.sub("public"))
        let storePath = origin.scratch.sub("device")
        let client = SyncClient(
            manifestURL: URL(string: "http://127.0.0.1:\(server.port)/manifest.json")!,
            store: SyncStore(directory: URL(fileURLWithPath: storePath)),
            trust: try ManifestTrust(trustedKeys: [signer.key.publicKey]), options: .init(timeout: 20))
        #expect(try await client.sync().outcome == .updated)
        let held = SigningOrigin.snapshot(storePath)

        // A new set, whose signature never ends.
        let second = try origin.publish(signer, tag: "two")
        server.serveDirectory(origin.scratch.sub("public"))
        let signaturePath = "/" + PublishedSignature.name(forManifest: try #require(second.manifestSHA256))
        for announce in [false, true] {
            server.set(signaturePath, .endless(bound: Self.bound, announcedLength: announce ? 1_000_000_000 : nil))
            let before = server.endlessRepliesSent.count
            let error = await Self.sync(client)
            #expect(
                error
                    == .bodyTooLarge(
                        url: "http://127.0.0.1:\(server.port)\(signaturePath)",
                        limit: MinisignSignature.maximumFileBytes),
                "announce \(announce): \(String(describing: error))")
            #expect(SigningOrigin.snapshot(storePath) == held)
            // The client hung up: the origin never got to the end of its bound.
            let sent = try #require(try await Self.endlessReplies(server, count: before + 1).last)
            #expect(sent < Self.bound, "announce \(announce): the client read all \(sent) bytes before refusing")
        }

        // The manifest itself never ends.
        server.set("/manifest.json", .endless(bound: Self.bound))
        let before = server.endlessRepliesSent.count
        let error = await Self.sync(client)
        #expect(
            error == .bodyTooLarge(url: "http://127.0.0.1:\(server.port)/manifest.json", limit: Manifest.maximumBytes),
            "\(String(describing: error))")
        #expect(SigningOrigin.snapshot(storePath) == held)
        let sent = try #require(try await Self.endlessReplies(server, count: before + 1).last)
        #expect(sent < Self.bound, "the client read all \(sent) manifest bytes before refusing")
        _ = first
    }

    /// Waits (bounded) until the origin's endless replies have ended: the client closed, or the bound ran out.
    static func endlessReplies(_ server: UpstreamServer, count: Int) async throws -> [Int] {
        _ = await eventually(timeout: 30, interval: 0.05) { server.endlessRepliesSent.count >= count }
        return server.endlessRepliesSent
    }
}
