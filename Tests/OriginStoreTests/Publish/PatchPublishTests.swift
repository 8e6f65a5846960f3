import Converter
import DictionaryPatch
import DictionaryPatchOrigin
import Foundation
import ListSync
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

#if canImport(Glibc)
    import Glibc
#endif

/// At publish time: dcz patches from the earlier versions of each list, written before
/// the manifest that names them, removed with the lists they lead to.
@Suite struct PatchPublishTests {

    @Test func patchesFromEveryEarlierVersionRoundTripToTheNewBytes() throws {
        let dir = ScratchDirectory("patches")
        var origin = PublishingOrigin(PublishingOrigin.publisher(dir.path))
        let first = try origin.publish(FixtureLists.patchVersion(1))
        #expect(try FixtureLists.manifestEntry(first, "net").patches == [])
        _ = try origin.publish(FixtureLists.patchVersion(2))
        let third = try origin.publish(FixtureLists.patchVersion(3))
        let net = try FixtureLists.manifestEntry(third, "net")
        let newBytes = Array(FixtureLists.patchList(2_000, version: 3, changed: [3, 503, 1_503]).utf8)
        #expect(net.bytes == newBytes.count)
        let olds = [2, 1].map {
            Array(FixtureLists.patchList(2_000, version: $0, changed: [$0, 500 + $0, 1_500 + $0]).utf8)
        }
        let patches = try #require(net.patches)
        // Most recent first: from version 2, then from version 1.
        #expect(patches.map(\.from) == olds.map { SHA256Digest.hex(of: $0) })
        for (patch, old) in zip(patches, olds) {
            let bytes = try #require(FileManager.default.contents(atPath: dir.path + "/" + patch.file))
            #expect(SHA256Digest.hex(of: bytes) == patch.sha256 && bytes.count == patch.bytes)
            #expect(patch.file == "net.\(patch.from.prefix(12))-\(net.sha256.prefix(12)).dcz")
            let decoded = try PatchDecoder().apply(
                bytes, to: Data(old), expectedBytes: newBytes.count, expectedSHA256: net.sha256)
            #expect(Array(decoded) == newBytes)
            // PatchSizeRule: enough smaller than the list's gzip.
            let gzip = try #require(third.plan.lists.first { $0.id == "net" }?.gzip)
            #expect(patch.bytes * PatchSizeRule.minimumSaving <= gzip.count)
        }
        // An unchanged list keeps the patches it had (none) and costs no encoding.
        #expect(try FixtureLists.manifestEntry(third, "css").patches == [])
        #expect(third.patches.encoded == 2 && third.patches.written == 2)
        // The in-memory set serves them, never gzip-encoded, and a restart reads the same back.
        #expect(third.published.content.files[patches[0].file]?.gzip == nil)
        let loaded = try origin.load()
        #expect(
            loaded.content.files[patches[0].file]?.identity == third.published.content.files[patches[0].file]?.identity)
        // Devices derive patch names: the published manifest lists none, and a restart finds the
        // same patches (full old hashes from their dcz headers) in the directory.
        let published = try Manifest.decode(Data(third.plan.manifest))
        #expect(published.patchFiles == Manifest.derivedPatchFiles)
        #expect(published.lists.allSatisfy { $0.patches == nil })
        #expect(!String(decoding: third.plan.manifest, as: UTF8.self).contains(#""patches""#))
        let byFile = { (lists: [Manifest.Entry]) in
            lists.map { ($0.id, Set(($0.patches ?? []).map(\.file)), ($0.patches ?? []).map(\.sha256).sorted()) }
        }
        #expect(byFile(loaded.manifest.lists).elementsEqual(byFile(third.published.manifest.lists)) { $0 == $1 })
        #expect(published.derivedPatch(for: net, from: patches[1].from)?.file == patches[1].file)
    }

    @Test func patchesLeaveWithTheListsTheyLeadToAndNoneStartsAtAnExpiredVersion() throws {
        let dir = ScratchDirectory("patch-grace")
        var origin = PublishingOrigin(PublishingOrigin.publisher(dir.path, grace: 3600))
        let start = Date()
        _ = try origin.publish(FixtureLists.patchVersion(1), now: start)
        let second = try origin.publish(FixtureLists.patchVersion(2), now: start)
        let oneToTwo = try #require(FixtureLists.manifestEntry(second, "net").patches?.first?.file)
        // Two hours on: version 1's grace is over, so no patch from it; version 2 is in grace with its patch.
        let third = try origin.publish(FixtureLists.patchVersion(3), now: start.addingTimeInterval(7_200))
        let patches3 = try #require(FixtureLists.manifestEntry(third, "net").patches)
        #expect(try patches3.map(\.from) == [FixtureLists.manifestEntry(second, "net").sha256])
        #expect(FileManager.default.fileExists(atPath: dir.path + "/" + oneToTwo))
        // Four hours on: version 2 and the patch that led to it are gone; the patch to version 3 stays.
        let fourth = try origin.publish(FixtureLists.patchVersion(4), now: start.addingTimeInterval(14_400))
        #expect(fourth.removedFiles.contains(oneToTwo))
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/" + oneToTwo))
        #expect(FileManager.default.fileExists(atPath: dir.path + "/" + patches3[0].file))
        #expect(Retention.isHashedFileName(oneToTwo))
    }

    /// The manifest names no patch, so a lost patch file is no broken set: a restart serves the
    /// list without it, and devices holding the old version take the whole file.
    @Test func aRestartWithoutAPatchFileServesTheListWithoutIt() throws {
        let dir = ScratchDirectory("patch-missing")
        var origin = PublishingOrigin(PublishingOrigin.publisher(dir.path))
        _ = try origin.publish(FixtureLists.patchVersion(1))
        let second = try origin.publish(FixtureLists.patchVersion(2))
        let patch = try #require(FixtureLists.manifestEntry(second, "net").patches?.first?.file)
        #expect(unlink(dir.path + "/" + patch) == 0)
        let loaded = try origin.load()
        #expect(loaded.manifest.lists.first { $0.id == "net" }?.patches == [])
        #expect(loaded.content.files[patch] == nil)
    }
}
