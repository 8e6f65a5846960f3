import DictionaryPatchOrigin
import Foundation
import ListFormat
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import ListSync
@testable import OriginStore

/// dcz patches on the device: the reference client against the real origin serving published sets
/// with patches. A device a few versions behind fetches patches; one too far behind, or one given a
/// bad patch, fetches full files, and nothing it holds is lost.
@Suite struct PatchSyncTests {
    /// Publishes versions of `FixtureLists.patchVersion` into one directory, as a server would.
    final class Publishing: @unchecked Sendable {
        let dir = ScratchDirectory("patch-sync")
        var origin: PublishingOrigin
        let harness: ServerHarness
        var outcomes: [Int: Publisher.Outcome] = [:]

        init() throws {
            origin = PublishingOrigin(PublishingOrigin.publisher(dir.path, grace: 30 * 86_400))
            harness = try ServerHarness(content: SiteContent.empty)
        }

        func publish(_ version: Int) throws {
            let outcome = try origin.publish(FixtureLists.patchVersion(version))
            outcomes[version] = outcome
            harness.server.install(outcome.published.content)
        }

        func device(_ label: String) throws -> (SyncClient, TemporaryDirectory) {
            let directory = try TemporaryDirectory(label)
            let client = SyncClient(
                manifestURL: URL(string: "http://127.0.0.1:\(harness.port)/manifest.json")!,
                store: SyncStore(directory: directory.url), trust: .unsignedAllowed,
                options: .init(timeout: 10))
            return (client, directory)
        }
    }

    static func netSHA(_ outcome: Publisher.Outcome?) throws -> String {
        try #require(outcome?.plan.lists.first { $0.id == "net" }?.sha256)
    }

    @Test func devicesOneAndThreeVersionsBehindFetchPatchesAndEightBehindFetchesFullFiles() async throws {
        let site = try Publishing()
        defer { site.harness.stop() }
        try site.publish(1)
        let (eightBehind, eightDir) = try site.device("sync-8")
        defer { eightDir.remove() }
        _ = try await eightBehind.sync()
        for version in 2...6 { try site.publish(version) }
        let (threeBehind, threeDir) = try site.device("sync-3")
        defer { threeDir.remove() }
        _ = try await threeBehind.sync()
        for version in 7...8 { try site.publish(version) }
        let (oneBehind, oneDir) = try site.device("sync-1")
        defer { oneDir.remove() }
        _ = try await oneBehind.sync()
        try site.publish(9)
        let newSHA = try Self.netSHA(site.outcomes[9])

        for (client, directory, viaPatch) in [
            (oneBehind, oneDir, true), (threeBehind, threeDir, true), (eightBehind, eightDir, false),
        ] {
            let report = try await client.sync()
            let net = try #require(report.downloaded.first { $0.id == "net" }, "\(directory.path)")
            #expect((net.patch != nil) == viaPatch, "\(report.summary)")
            #expect(net.patchFallback == nil, "no patch named from the held version is no failure")
            #expect(report.downloaded.allSatisfy { $0.id == "net" }, "css did not change")
            let stored = try #require(FileManager.default.contents(atPath: client.store.fileURL(sha256: newSHA).path))
            #expect(SHA256Digest.hex(of: stored) == newSHA)
            if viaPatch {
                #expect(report.patchTransferredBytes > 0 && report.fullFileTransferredBytes == 0)
                #expect(
                    report.patchTransferredBytes * PatchSizeRule.minimumSaving
                        <= (site.outcomes[9]?.plan.lists.first { $0.id == "net" }?.gzip?.count ?? 0))
            } else {
                #expect(report.patchTransferredBytes == 0 && report.fullFileTransferredBytes > 0)
            }
        }
    }

    enum Fault: CaseIterable {
        case wrongBase, corrupt, truncated, bomb, hashMismatch
    }

    /// The patch from version 1 to 2 replaced by a bad one the manifest names with its true hash
    /// (so the decoder's checks are what must catch it), except `hashMismatch`, where only the
    /// served bytes change.
    /// `listed`: the manifest is rewritten in the older style that lists each patch with its hash
    /// (what old servers publish); otherwise the client derives the patch's name.
    static func sabotaged(_ content: SiteContent, fault: Fault, listed: Bool, v1: [UInt8], v2: [UInt8]) throws
        -> SiteContent
    {
        var manifest = try Manifest.decode(Data(try #require(content.manifest).identity))
        let index = try #require(manifest.lists.firstIndex { $0.id == "net" })
        let derived = try #require(manifest.derivedPatch(for: manifest.lists[index], from: SHA256Digest.hex(of: v1)))
        let good = try #require(content.files[derived.file]).identity
        var patch = Manifest.Patch(
            from: derived.from, file: derived.file, sha256: SHA256Digest.hex(of: good), bytes: good.count)
        var bad: [UInt8]
        switch fault {
        case .wrongBase: bad = try PatchEncoder().encode(from: Array(v1.dropLast(2)) + [0x5d], to: v2)
        case .corrupt:
            bad = good
            for offset in 48..<min(bad.count, 64) { bad[offset] ^= 0x5a }
        case .truncated: bad = Array(good.dropLast(12))
        case .bomb: bad = try PatchEncoder().encode(from: v1, to: v2 + [UInt8](repeating: 0x20, count: 32 << 20))
        case .hashMismatch:
            bad = good
            bad[bad.count - 1] ^= 1
        }
        if fault != .hashMismatch {
            patch.sha256 = SHA256Digest.hex(of: bad)
            patch.bytes = bad.count
        }
        if listed {
            manifest.patchFiles = nil
            manifest.lists[index].patches = [patch]
        }
        var out = content
        out.files[patch.file]?.identity = bad
        out.files[patch.file]?.sha256 = SHA256Digest.hex(of: bad)
        let bytes = manifest.encoded()
        out.manifest = PublishedSet.manifestEntry(bytes, sha256: SHA256Digest.hex(of: bytes), lastModified: Date())
        return out
    }

    @Test(arguments: Fault.allCases, [false, true])
    func aBadPatchFallsBackToTheFullFileAndLosesNothing(_ fault: Fault, listed: Bool) async throws {
        let site = try Publishing()
        defer { site.harness.stop() }
        try site.publish(1)
        let (client, directory) = try site.device("sync-fault")
        defer { directory.remove() }
        _ = try await client.sync()
        let v1SHA = try Self.netSHA(site.outcomes[1])
        try site.publish(2)
        let v1 = try #require(site.outcomes[1]?.plan.lists.first { $0.id == "net" }?.identity)
        let v2 = try #require(site.outcomes[2]?.plan.lists.first { $0.id == "net" }?.identity)
        site.harness.server.install(
            try Self.sabotaged(site.outcomes[2]!.published.content, fault: fault, listed: listed, v1: v1, v2: v2))

        let report = try await client.sync()
        let net = try #require(report.downloaded.first { $0.id == "net" })
        #expect(net.patch == nil)
        let reason = try #require(net.patchFallback, "\(fault): the report says why the patch was not used")
        #expect(!reason.isEmpty)
        #expect(report.fullFileTransferredBytes > 0)
        let newSHA = try Self.netSHA(site.outcomes[2])
        let stored = try #require(FileManager.default.contents(atPath: client.store.fileURL(sha256: newSHA).path))
        #expect(SHA256Digest.hex(of: stored) == newSHA, "\(fault)")
        #expect(try client.store.syncedLists().first { $0.id == "net" }?.sha256 == newSHA)
        #expect(v1SHA != newSHA)
    }
}
