import Foundation
@testable import ListSync
import Testing
import TestSupport

/// The device side on its own: the store's integrity check and the format names a device resolves,
/// through ListSync alone (the format comes with it, as an app sees it).
@Suite struct StoreAndFormatTests {
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
        #expect(PublishedFileNames.manifestSHA256(inSignatureFileName: url.lastPathComponent) == SHA256Digest.hex(of: manifest))
    }

    @Test func trustedCommentsRoundTripAndIgnoreWhatTheyDoNotKnow() {
        let comment = TrustedComment(generation: 1_767_225_600, expires: "2026-12-15T00:00:00Z")
        #expect(comment.text == "generation:1767225600\texpires:2026-12-15T00:00:00Z")
        #expect(TrustedComment(parsing: comment.text) == comment)
        #expect(TrustedComment(parsing: "timestamp:1 generation:7 file:manifest.json") == TrustedComment(generation: 7, expires: nil))
        #expect(TrustedComment(parsing: "generation:seven").generation == nil)
    }

    @Test func listFileNamesCarryTheirIdAndHashPrefix() {
        let sha = String(repeating: "0123456789abcdef", count: 4)
        let name = PublishedFileNames.list(id: "easylist-00", sha256: sha)
        #expect(name == "easylist-00.0123456789ab.json")
        #expect(PublishedFileNames.listID(ofListFile: name) == "easylist-00")
        #expect(PublishedFileNames.isHashedFile(name) && PublishedFileNames.isHashedFile(name + ".gz"))
        for other in ["manifest.json", "report.json", "Easylist.0123456789ab.json", "a.0123456789AB.json", "a.0123456789ab.json.br", "../a.0123456789ab.json"] {
            #expect(!PublishedFileNames.isHashedFile(other), "\(other)")
        }
    }
}
