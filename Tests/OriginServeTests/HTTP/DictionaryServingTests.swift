import DictionaryPatch
import DictionaryPatchOrigin
import Foundation
import HTTPServerCore
import ListSync
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

/// RFC 9842 Compression Dictionary Transport on list URLs, over real loopback sockets.
/// A published set with two versions of `net` (so one patch leads to the current list).
@Suite struct DictionaryServingTests {
    struct Published {
        let content: SiteContent
        let patch: Manifest.Patch
        /// The current `net` list file (the patch's target) and the version the patch starts from.
        let current: SiteContent.Entry
        let old: SiteContent.Entry

        var offer: String { AvailableDictionaryField.fieldValue(sha256: SHA256Digest.of(Data(old.identity))) }
    }

    static func published() throws -> Published {
        let (content, patch) = try PatchServingTests.publishedPatch()
        let old = try #require(content.files.values.first { $0.sha256 == patch.from })
        let current = try #require(
            content.files.values.first {
                $0.name.hasPrefix("net.") && $0.name.hasSuffix(".json") && $0.sha256 != patch.from
            })
        return Published(content: content, patch: patch, current: current, old: old)
    }

    /// The `match` pattern as RFC 9842 §2.1.1 applies it: a URL Pattern pathname; here only literal
    /// characters and `*` (any run of characters) occur, which this translates to a regex.
    static func pathMatches(_ useAsDictionary: String, _ path: String) throws -> Bool {
        let prefix = "match=\""
        #expect(
            useAsDictionary.hasPrefix(prefix) && useAsDictionary.hasSuffix("\""),
            "an sf-dictionary with one string member")
        let pattern = useAsDictionary.dropFirst(prefix.count).dropLast()
        #expect(
            !pattern.contains("(") && !pattern.contains(":") && !pattern.contains("\\"),
            "no regexp groups or named groups (§2.1.1)")
        let regex =
            "^"
            + pattern.split(separator: "*", omittingEmptySubsequences: false).map {
                NSRegularExpression.escapedPattern(for: String($0))
            }
            .joined(separator: ".*") + "$"
        return path.range(of: regex, options: .regularExpression) != nil
    }

    @Test func everyListResponseNamesItsLaterVersionsAsItsDictionaryScope() throws {
        let published = try Self.published()
        let harness = try ServerHarness(content: published.content)
        defer { harness.stop() }
        let old = try harness.request("/\(published.old.name)", headers: ["Accept-Encoding": "gzip"])
        #expect(old.status == 200)
        let scope = try #require(old.header("Use-As-Dictionary"))
        // The old version's scope covers the current version of the same id, and nothing else published.
        #expect(try Self.pathMatches(scope, "/\(published.current.name)"))
        for name in published.content.files.keys where !name.hasPrefix("net.") || name.hasSuffix(".dcz") {
            #expect(try !Self.pathMatches(scope, "/\(name)"), "\(name) is not a later version of net")
        }
        #expect(try !Self.pathMatches(scope, "/manifest.json"))
        #expect(
            try !Self.pathMatches(scope, "/network.\(published.current.sha256.prefix(12)).json"),
            "a longer id sharing the prefix")

        // Every list response varies on both request fields: 200 (each coding), HEAD, 304, 206.
        let etag = try #require(old.header("ETag"))
        let answers = [
            try harness.request("/\(published.current.name)"),
            try harness.request("/\(published.current.name)", headers: ["Accept-Encoding": "gzip"]),
            try harness.request(
                "/\(published.current.name)",
                headers: ["Accept-Encoding": "gzip, dcz", "Available-Dictionary": published.offer]),
            try harness.request(
                "/\(published.current.name)", method: "HEAD",
                headers: ["Accept-Encoding": "dcz", "Available-Dictionary": published.offer]),
            try harness.request("/\(published.old.name)", headers: ["Accept-Encoding": "gzip", "If-None-Match": etag]),
            try harness.request("/\(published.current.name)", headers: ["Range": "bytes=0-9"]),
        ]
        #expect(answers.map(\.status) == [200, 200, 200, 200, 304, 206])
        for answer in answers {
            #expect(answer.header("Vary") == "Accept-Encoding, Available-Dictionary", "\(answer.status)")
        }
        // Not list URLs: the manifest and patch files vary on Accept-Encoding only and are no dictionary.
        for target in ["/manifest.json", "/\(published.patch.file)"] {
            let response = try harness.request(
                target, headers: ["Accept-Encoding": "gzip, dcz", "Available-Dictionary": published.offer])
            #expect(response.header("Vary") == "Accept-Encoding", "\(target)")
            #expect(response.header("Use-As-Dictionary") == nil, "\(target)")
            #expect(response.header("Content-Encoding") != "dcz", "\(target)")
        }
    }

    @Test func aKnownDictionaryGetsThePrecomputedPatchAsDcz() throws {
        let published = try Self.published()
        let harness = try ServerHarness(content: published.content)
        defer { harness.stop() }
        let target = "/\(published.current.name)"
        let patchBytes = try #require(published.content.files[published.patch.file]?.identity)
        let identityTag = try #require(try harness.request(target).header("ETag"))
        let gzipTag = try #require(try harness.request(target, headers: ["Accept-Encoding": "gzip"]).header("ETag"))
        // Chrome's Accept-Encoding, the padded and unpadded byte sequence, and a parameter on the item.
        let unpadded = String(published.offer.dropLast(2)) + ":"
        for (acceptEncoding, offer) in [
            ("gzip, deflate, br, zstd, dcb, dcz", published.offer), ("dcz", unpadded),
            ("DCZ;q=0.5, gzip", published.offer + ";x=1"),
        ] {
            let response = try harness.request(
                target, headers: ["Accept-Encoding": acceptEncoding, "Available-Dictionary": offer])
            #expect(response.status == 200)
            #expect(response.header("Content-Encoding") == "dcz", "\(acceptEncoding) / \(offer)")
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.header("Content-Length") == String(patchBytes.count))
            #expect(response.body == patchBytes, "the precomputed patch, byte for byte")
            let decoded = try PatchDecoder().apply(
                Data(response.body), to: Data(published.old.identity), expectedBytes: published.current.identity.count,
                expectedSHA256: published.current.sha256)
            #expect(Array(decoded) == published.current.identity)
            let tag = try #require(response.header("ETag"))
            #expect(tag != identityTag && tag != gzipTag, "each coding has its own entity-tag")
            // Revalidating the dcz variant: 304 with the same tag and Vary; the dcz tag does not validate identity.
            let again = try harness.request(
                target,
                headers: ["Accept-Encoding": acceptEncoding, "Available-Dictionary": offer, "If-None-Match": tag])
            #expect(again.status == 304 && again.header("ETag") == tag && again.body.isEmpty)
            #expect(try harness.request(target, headers: ["If-None-Match": tag]).status == 200)
        }
        let head = try harness.request(
            target, method: "HEAD", headers: ["Accept-Encoding": "dcz", "Available-Dictionary": published.offer])
        #expect(head.status == 200 && head.header("Content-Encoding") == "dcz" && head.body.isEmpty)
        #expect(head.header("Content-Length") == String(patchBytes.count))
    }

    /// Anything short of a known hash plus `dcz` in Accept-Encoding is the ordinary gzip/identity answer.
    @Test func unknownOrUnusableOffersGetTheOrdinaryCodings() throws {
        let published = try Self.published()
        let harness = try ServerHarness(content: published.content)
        defer { harness.stop() }
        let target = "/\(published.current.name)"
        let unknown = AvailableDictionaryField.fieldValue(sha256: [UInt8](repeating: 7, count: 32))
        let hex = ":\(published.old.sha256):"
        let cases: [(acceptEncoding: String?, offer: String, coding: String?)] = [
            ("gzip, dcz", unknown, "gzip"),
            (nil, published.offer, nil),
            ("gzip", published.offer, "gzip"),
            ("gzip, dcz;q=0", published.offer, "gzip"),
            ("*;q=0, identity", published.offer, nil),
            ("gzip, dcz", hex, "gzip"),
            ("gzip, dcz", String(published.offer.dropFirst()), "gzip"),
            ("gzip, dcz", published.offer + " trailing", "gzip"),
            // The current version as its own dictionary: no patch from a version to itself.
            (
                "gzip, dcz",
                AvailableDictionaryField.fieldValue(sha256: SHA256Digest.of(Data(published.current.identity))), "gzip"
            ),
        ]
        for (acceptEncoding, offer, coding) in cases {
            var headers = ["Available-Dictionary": offer]
            headers["Accept-Encoding"] = acceptEncoding
            let response = try harness.request(target, headers: headers)
            #expect(response.status == 200)
            #expect(response.header("Content-Encoding") == coding, "\(acceptEncoding ?? "absent") / \(offer)")
            let decoded = coding == "gzip" ? try Gzip.decompress(response.body, limit: 1 << 24) : response.body
            #expect(decoded == published.current.identity)
        }
    }

    /// Documented policy: ranges apply to the identity representation only, so a Range request that
    /// offers a dictionary gets identity bytes (206), never a slice of a dcz body.
    @Test func rangeRequestsGetIdentityEvenWithADictionary() throws {
        let published = try Self.published()
        let harness = try ServerHarness(content: published.content)
        defer { harness.stop() }
        let response = try harness.request(
            "/\(published.current.name)",
            headers: ["Range": "bytes=0-39", "Accept-Encoding": "dcz, gzip", "Available-Dictionary": published.offer])
        #expect(response.status == 206)
        #expect(response.header("Content-Encoding") == nil)
        #expect(response.body == Array(published.current.identity[0..<40]))
        #expect(response.header("Content-Range") == "bytes 0-39/\(published.current.identity.count)")
    }
}
