import Converter
import Foundation
import ListSync
import ManifestSigning
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Signed manifests, the publishing half: every manifest is signed (Debian's `minisign` checks it, fetched
/// over HTTP from a real `listserver serve`), re-signed before it expires, and a key file others can
/// read stops the server with the fix.
@Suite(.serialized) struct SignedPublishTests {
    /// A small snapshot pair (a few thousand rules) so a cold start converts in seconds.
    static func smallSnapshot(in scratch: ScratchDirectory) throws -> String {
        let directory = scratch.sub("snapshot")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for name in ["easylist.txt", "easyprivacy.txt"] {
            let text = try String(contentsOfFile: ListServerProcess.repositorySnapshot + "/" + name, encoding: .utf8)
            let head = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(3_000).joined(
                separator: "\n")
            try Array(head.utf8).write(to: directory + "/" + name)
        }
        return directory
    }

    static func signer(validity: Double) throws -> ManifestSigner {
        ManifestSigner(key: try ManifestSigningKey.generate(), validity: validity)
    }

    static func verifier(_ signer: ManifestSigner) throws -> SignatureVerifier {
        try SignatureVerifier(trustedKeys: [signer.key.publicKey])
    }

    @Test func serveSignsItsManifestAndMinisignVerifiesItFetchedOverHTTP() async throws {
        let scratch = ScratchDirectory("signed-serve")
        let closed = try UpstreamServer()
        closed.stop()
        try ListServerProcess.writeConfig(
            scratch.path, upstreamBase: "http://127.0.0.1:\(closed.port)",
            snapshotDirectory: try Self.smallSnapshot(in: scratch))
        let server = try ListServerProcess(directory: scratch.path)
        let manifestData = try #require(try await ListServerProcess.waitFor200(server, "/manifest.json", seconds: 60))
        let manifest = try Manifest.decode(manifestData)
        let generation = try #require(manifest.generation, "a served manifest carries a generation")
        let expires = try #require(manifest.expires.flatMap(ManifestSigner.parseTime), "and an RFC 3339 expiry")
        #expect(expires.timeIntervalSinceNow > 13 * 86_400, "the default validity is 14 days from the signing day")

        let sha = SHA256Digest.hex(of: Array(manifestData))
        var request = URLRequest(
            url: server.url("/signatures/\(sha).minisig"), cachePolicy: .reloadIgnoringLocalCacheData)
        request.httpMethod = "GET"
        let (signature, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Cache-Control")?.contains("immutable") == true)

        let publicKeyFile = try String(contentsOfFile: scratch.sub("state/signing-key.pub"), encoding: .utf8)
        let publicKey = try #require(publicKeyFile.split(separator: "\n").last.map(String.init))
        try manifestData.write(to: URL(fileURLWithPath: scratch.sub("manifest.json")))
        try signature.write(to: URL(fileURLWithPath: scratch.sub("manifest.minisig")))
        let verified = try ChildRun.run(
            "/usr/bin/minisign",
            ["-V", "-P", publicKey, "-m", scratch.sub("manifest.json"), "-x", scratch.sub("manifest.minisig")])
        #expect(verified.status == 0, "minisign: \(verified.output)")
        #expect(
            verified.output.contains("generation:\(generation)"),
            "minisign shows the trusted comment: \(verified.output)")

        var tampered = Array(manifestData)
        let digit = try #require(tampered.firstIndex(of: UInt8(ascii: "1")))
        tampered[digit] = UInt8(ascii: "2")
        try tampered.write(to: scratch.sub("manifest.json"))
        let refused = try ChildRun.run(
            "/usr/bin/minisign",
            ["-V", "-P", publicKey, "-m", scratch.sub("manifest.json"), "-x", scratch.sub("manifest.minisig")])
        #expect(refused.status != 0, "minisign must reject a manifest with one byte changed: \(refused.output)")

        // The operator's view: the key to pin, the served signature's state, the seconds left.
        let (_, statusBody) = try await ListServerProcess.request(server.url("/status"))
        let status = try #require(try JSONSerialization.jsonObject(with: statusBody) as? [String: Any])
        let signing = try #require(status["signing"] as? [String: Any], "/status has a signing object")
        #expect(signing["publicKey"] as? String == publicKey)
        let keyID = try #require(
            publicKeyFile.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        #expect(signing["keyId"] as? String == keyID)
        #expect(signing["generation"] as? Int == generation)
        #expect(signing["expires"] as? String == manifest.expires)
        let signedAt = try #require((signing["signedAt"] as? String).flatMap(ManifestSigner.parseTime))
        #expect(abs(signedAt.timeIntervalSinceNow) < 300, "signed during this start")
        let (_, metricsBody) = try await ListServerProcess.request(server.url("/metrics"))
        let metrics = String(decoding: metricsBody, as: UTF8.self)
        let line = try #require(
            metrics.split(separator: "\n").first { $0.hasPrefix("listserver_signature_expiry_seconds{") }, "\(metrics)")
        #expect(line.contains("key_id=\"\(keyID)\""))
        let left = try #require(Double(line.split(separator: " ").last ?? ""))
        #expect(abs(left - expires.timeIntervalSinceNow) < 60, "the gauge is the time left until `expires`: \(line)")
        #expect(server.terminate() == 0)
    }

    @Test func aKeyFileOtherUsersCanReadStopsServeAndSaysHowToFixIt() throws {
        let scratch = ScratchDirectory("signed-mode")
        let written = try SigningKeyFile.generate(inDirectory: scratch.sub("keys"))
        chmod(written.privateKeyPath, 0o644)
        let config = """
            {"publicDir": "public", "stateDir": "state",
             "upstreams": [{"id": "easylist", "url": "http://127.0.0.1:9/easylist.txt", "snapshot": "\(ListServerProcess.repositorySnapshot)/easylist.txt"}],
             "publish": {"verifyWithWebKit": "off", "signingKeyFile": "keys/signing-key.pem"}}
            """
        try Array(config.utf8).write(to: scratch.sub("config.json"))
        let finished = try ChildRun.run(
            try ListServerBinary.path(), ["serve", "--config", scratch.sub("config.json"), "--port", "0"], timeout: 60)
        #expect(finished.status == 1)
        #expect(finished.stderr.contains("mode 644"), "\(finished.stderr)")
        #expect(finished.stderr.contains("chmod 600 \(written.privateKeyPath)"), "\(finished.stderr)")
        #expect(
            !FileManager.default.fileExists(atPath: scratch.sub("public/manifest.json")),
            "nothing is published unsigned")
    }

    @Test func anUnchangedSetIsResignedOnceHalfItsValidityIsGoneWithoutTouchingAList() throws {
        let scratch = ScratchDirectory("signed-renew")
        let signer = try Self.signer(validity: 4_000)
        var publisher = Publisher(
            writer: SetWriter(directory: scratch.path), gracePeriod: 3_600, gate: nil, log: LogLines().log,
            signer: signer)
        let output = FixtureLists.conversionOutput([FixtureLists.incompressibleList("ads", rules: 50)])
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var history: [PersistentState.PublishRecord] = []
        let first = try publisher.publish(output, over: nil, history: &history, now: start)
        #expect(PublishedSignatureCheck.problems(in: scratch.path, verifier: try Self.verifier(signer)).isEmpty)

        // The same lists again, early: the very same manifest bytes, nothing re-signed.
        let again = try publisher.publish(
            output, over: first.published, history: &history, now: start.addingTimeInterval(100))
        #expect(!again.manifestChanged)
        #expect(
            try publisher.renewSignatureIfDue(
                of: again.published, history: &history, now: start.addingTimeInterval(1_900)) == nil)

        let listsBefore = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter {
            $0.hasSuffix(".json") || $0.hasSuffix(".gz")
        }
        let renewed = try #require(
            try publisher.renewSignatureIfDue(
                of: again.published, history: &history, now: start.addingTimeInterval(2_100)),
            "less than half of the validity left: re-signed")
        #expect(renewed.manifestSHA256 != first.published.manifestSHA256)
        #expect((renewed.manifest.generation ?? 0) > (first.published.manifest.generation ?? 0))
        #expect(renewed.manifest.lists == first.published.manifest.lists)
        #expect(renewed.content.files == again.published.content.files, "no list file changes")
        let listsAfter = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter {
            $0.hasSuffix(".json") || $0.hasSuffix(".gz")
        }
        #expect(Set(listsAfter) == Set(listsBefore))
        #expect(PublishedSignatureCheck.problems(in: scratch.path, verifier: try Self.verifier(signer)).isEmpty)
        #expect(renewed.content.signatures.count == 2, "the older manifest's signature stays until it expires")

        // A new key (rotation): the next refresh signs with it at once.
        let rotated = try Self.signer(validity: 4_000)
        publisher.signer = rotated
        let switched = try #require(
            try publisher.renewSignatureIfDue(of: renewed, history: &history, now: start.addingTimeInterval(2_200)))
        #expect(PublishedSignatureCheck.problems(in: scratch.path, verifier: try Self.verifier(rotated)).isEmpty)
        #expect((switched.manifest.generation ?? 0) > (renewed.manifest.generation ?? 0))
        // Once the first manifest has expired, its signature is pruned from disk and from the set.
        let later = try publisher.publish(
            FixtureLists.conversionOutput([FixtureLists.incompressibleList("ads", rules: 40)]), over: switched,
            history: &history,
            now: start.addingTimeInterval(4_100))
        let firstName = PublishedSignature.name(forManifest: try #require(first.published.manifestSHA256))
        #expect(later.published.content.signatures[firstName] == nil)
        #expect(!FileManager.default.fileExists(atPath: scratch.sub(firstName)))
    }

    /// The signature goes to disk before its manifest: when it cannot be written (here a file is in
    /// the way of `signatures/`), the publish fails and the previous manifest stays in place.
    @Test func aSignatureThatCannotBeWrittenLeavesThePreviousManifestServed() throws {
        let scratch = ScratchDirectory("signed-fault")
        let signer = try Self.signer(validity: 14 * 86_400)
        let publisher = Publisher(
            writer: SetWriter(directory: scratch.path), gracePeriod: 3_600, gate: nil, log: LogLines().log,
            signer: signer)
        var history: [PersistentState.PublishRecord] = []
        let first = try publisher.publish(
            FixtureLists.conversionOutput([FixtureLists.incompressibleList("ads", rules: 30)]), over: nil,
            history: &history)
        let manifestBefore = FileManager.default.contents(atPath: scratch.sub("manifest.json"))
        try FileManager.default.moveItem(atPath: scratch.sub("signatures"), toPath: scratch.sub("signatures.moved"))
        try Array("in the way".utf8).write(to: scratch.sub("signatures"))
        #expect(throws: PublishError.self) {
            _ = try publisher.publish(
                FixtureLists.conversionOutput([FixtureLists.incompressibleList("ads", rules: 31)]),
                over: first.published, history: &history)
        }
        #expect(FileManager.default.contents(atPath: scratch.sub("manifest.json")) == manifestBefore)
    }

    @Test func twoOriginsFedTheSameListsWithinOneStepPublishTheSameSignedBytes() throws {
        let scratch = ScratchDirectory("signed-origins")
        let signer = try Self.signer(validity: 14 * 86_400)
        let output = FixtureLists.conversionOutput([FixtureLists.incompressibleList("ads", rules: 30)])
        let morning = Date(timeIntervalSince1970: 1_800_000_000)
        var results: [(manifest: [UInt8], signature: [UInt8])] = []
        for (origin, now) in [("a", morning), ("b", morning.addingTimeInterval(3_000))] {
            let publisher = Publisher(
                writer: SetWriter(directory: scratch.sub(origin)), gracePeriod: 3_600, gate: nil, log: LogLines().log,
                signer: signer)
            var history: [PersistentState.PublishRecord] = []
            let outcome = try publisher.publish(output, over: nil, history: &history, now: now)
            let entry = try #require(outcome.published.content.manifest)
            let signature = try #require(outcome.plan.signature)
            results.append((entry.identity, signature.bytes))
        }
        #expect(results[0].manifest == results[1].manifest)
        #expect(results[0].signature == results[1].signature)
        let manifest = try Manifest.decode(Data(results[0].manifest))
        #expect(manifest.generation == 1_799_971_200, "the signing day 2027-01-15 00:00 UTC in Unix seconds")
        #expect(manifest.expires == "2027-01-29T00:00:00Z")
    }
}
