import Foundation
import ListSync
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

/// Published dcz patch files over real loopback sockets, served like list files
/// (immutable, content-hash ETag, HEAD, conditionals, ranges) but as octet-stream, never gzip-encoded.
@Suite struct PatchServingTests {
    /// A published set of two versions of `net`, so one patch exists; its served content and the patch entry.
    static func publishedPatch() throws -> (SiteContent, Manifest.Patch) {
        let dir = ScratchDirectory("patch-serve")
        var origin = PublishingOrigin(PublishingOrigin.publisher(dir.path))
        _ = try origin.publish(FixtureLists.patchVersion(1))
        let second = try origin.publish(FixtureLists.patchVersion(2))
        let patch = try #require(FixtureLists.manifestEntry(second, "net").patches?.first)
        return (second.published.content, patch)
    }

    @Test func patchFilesAreImmutableOctetStreamWithValidatorsAndRanges() throws {
        let (content, patch) = try Self.publishedPatch()
        let harness = try ServerHarness(content: content)
        defer { harness.stop() }
        let bytes = try #require(content.files[patch.file]?.identity)
        let response = try harness.request("/\(patch.file)", headers: ["Accept-Encoding": "gzip, br"])
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/octet-stream")
        #expect(response.header("Content-Encoding") == nil, "a dcz patch is never gzip-encoded again")
        #expect(response.header("Cache-Control") == "public, max-age=31536000, immutable")
        let etag = "\"\(patch.sha256.prefix(16))\""
        #expect(response.header("ETag") == etag)
        #expect(response.body == bytes && bytes.count == patch.bytes)

        let head = try harness.request("/\(patch.file)", method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == String(bytes.count))
        let notModified = try harness.request(
            "/\(patch.file)", headers: ["If-None-Match": etag, "Accept-Encoding": "gzip"])
        #expect(notModified.status == 304)
        let range = try harness.request("/\(patch.file)", headers: ["Range": "bytes=0-39"])
        #expect(range.status == 206)
        #expect(range.body == Array(bytes[0..<40]), "the 40-byte dcz header")
        #expect(range.header("Content-Range") == "bytes 0-39/\(bytes.count)")
    }
}
