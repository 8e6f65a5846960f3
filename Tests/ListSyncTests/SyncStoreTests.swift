import Foundation
import TestSupport
import Testing

@testable import ListSync

/// The device side on its own: a body counts as held only while its bytes match its name, and the
/// signature a device asks for is named by the manifest it has.
@Suite struct SyncStoreTests {
    @Test func aStoredBodyIsIntactUntilItsBytesChangeThenItIsDropped() throws {
        let scratch = ScratchDirectory("listsync-store")
        let store = SyncStore(directory: scratch.url.appendingPathComponent("store"))
        try store.prepare()
        let body = Data(#"[{"trigger":{"url-filter":"ads"},"action":{"type":"block"}}]"#.utf8)
        let hash = SHA256Digest.hex(of: body)
        try store.storeFile(body, sha256: hash)
        #expect(store.holdsIntact(sha256: hash))
        try Data(body.dropLast()).write(to: store.fileURL(sha256: hash))
        #expect(!store.holdsIntact(sha256: hash), "a truncated body must not pass as the hash it is named by")
        #expect(!store.contains(sha256: hash), "the damaged body is removed so the next sync fetches it again")
    }

    @Test func theSignatureOfAManifestIsNamedByTheManifestsOwnHash() throws {
        let manifest = Data(#"{"format":1,"lists":[]}"#.utf8)
        let base = try #require(URL(string: "https://cdn.example/lists/manifest.json"))
        let url = try #require(ManifestTrust.signatureURL(forManifest: manifest, at: base))
        #expect(url.absoluteString == "https://cdn.example/lists/signatures/\(SHA256Digest.hex(of: manifest)).minisig")
        #expect(
            PublishedFileNames.manifestSHA256(inSignatureFileName: url.lastPathComponent)
                == SHA256Digest.hex(of: manifest))
    }
}
