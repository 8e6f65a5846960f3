import Foundation
import ListFormat
import OriginTestSupport
import Testing

@testable import ListOrigin
@testable import ListSync
@testable import OriginStore

/// The reference client against a scripted loopback origin: what it downloads, what it keeps,
/// and that every failure leaves the last synced set intact.
@Suite struct SyncClientTests {
    static let v1 = ScriptedSite(lists: [
        (id: "network-00", body: #"[{"trigger":{"url-filter":"a"},"action":{"type":"block"}}]"#),
        (id: "network-01", body: #"[{"trigger":{"url-filter":"b"},"action":{"type":"block"}}]"#),
        (
            id: "cosmetic",
            body: #"[{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":".ad"}}]"#
        ),
    ])
    /// network-01 changed, cosmetic gone, recent added; network-00 unchanged.
    static let v2 = ScriptedSite(lists: [
        (id: "network-00", body: #"[{"trigger":{"url-filter":"a"},"action":{"type":"block"}}]"#),
        (id: "network-01", body: #"[{"trigger":{"url-filter":"b2"},"action":{"type":"block"}}]"#),
        (id: "recent", body: #"[{"trigger":{"url-filter":"c"},"action":{"type":"block"}}]"#),
    ])

    static func client(_ origin: ScriptedOrigin, _ directory: TemporaryDirectory, path: String = "/manifest.json")
        -> SyncClient
    {
        SyncClient(
            manifestURL: URL(string: origin.baseURL + path)!, store: SyncStore(directory: directory.url),
            trust: .unsignedAllowed,
            options: .init(timeout: 10))
    }

    @Test func firstSyncDownloadsEverythingThenRevalidatesWith304() async throws {
        let origin = try ScriptedOrigin()
        defer { origin.stop() }
        let directory = try TemporaryDirectory("sync-first")
        defer { directory.remove() }
        let site = Self.v1
        origin.setHandler { site.reply(to: $0) }
        let client = Self.client(origin, directory)

        let first = try await client.sync()
        #expect(first.outcome == .updated)
        #expect(Set(first.downloaded.map(\.sha256)) == site.hashes)
        #expect(first.recompile == ["network-00", "network-01", "cosmetic"])
        #expect(try directory.storedHashes() == site.hashes)
        let synced = try SyncStore(directory: directory.url).syncedLists()
        #expect(synced.map(\.id) == ["network-00", "network-01", "cosmetic"])
        #expect(synced.allSatisfy { FileManager.default.fileExists(atPath: $0.fileURL.path) })
        #expect(origin.requests.allSatisfy { $0.headers["accept-encoding"]?.contains("gzip") == true })
        #expect(origin.requests.first?.headers["if-none-match"] == nil)

        origin.clearLog()
        let second = try await client.sync()
        #expect(second.outcome == .notModified)
        #expect(second.downloaded.isEmpty && second.recompile.isEmpty)
        #expect(origin.requests.map(\.path) == ["/manifest.json"])
        #expect(origin.requests.first?.headers["if-none-match"] == site.manifestETag)
        #expect(try directory.storedHashes() == site.hashes)
    }

    @Test func gzipBodiesAreCountedAtTheirTransferredSize() async throws {
        let origin = try ScriptedOrigin()
        defer { origin.stop() }
        let directory = try TemporaryDirectory("sync-gzip")
        defer { directory.remove() }
        let big =
            "["
            + (0..<500).map { #"{"trigger":{"url-filter":"ad\#($0)"},"action":{"type":"block"}}"# }.joined(
                separator: ",") + "]"
        let site = ScriptedSite(lists: [(id: "network-00", body: big)])
        origin.setHandler { site.reply(to: $0) }

        let report = try await Self.client(origin, directory).sync()
        let file = try #require(report.downloaded.first)
        let gzipSize = try Gzip.compress(Array(big.utf8)).count
        #expect(file.bytes == big.utf8.count)
        #expect(file.transferredBytes == gzipSize)
        #expect(report.transferredBytes == gzipSize + site.manifest.count)
    }

    @Test func newSetDownloadsOnlyChangedHashesAndTidiesAfterSuccess() async throws {
        let origin = try ScriptedOrigin()
        defer { origin.stop() }
        let directory = try TemporaryDirectory("sync-delta")
        defer { directory.remove() }
        let (v1, v2) = (Self.v1, Self.v2)
        origin.setHandler { v1.reply(to: $0) }
        let client = Self.client(origin, directory)
        _ = try await client.sync()

        origin.setHandler { v2.reply(to: $0) }
        origin.clearLog()
        let report = try await client.sync()
        #expect(report.outcome == .updated)
        #expect(Set(report.downloaded.map(\.sha256)) == v2.hashes.subtracting(v1.hashes))
        #expect(report.reusedFiles == 1)
        #expect(report.recompile == ["network-01", "recent"])
        #expect(report.removedLists == ["cosmetic"])
        #expect(report.removedFiles == 2)
        #expect(try directory.storedHashes() == v2.hashes)
        #expect(origin.requests.count == 3, "manifest plus the two new files, got \(origin.requests.map(\.path))")
    }

    /// Each way a new set can be broken; the device must keep the old set and its state byte for byte.
    enum Fault: CaseIterable {
        case wrongHash, truncatedBody, serverErrorOnFile, serverErrorOnManifest, unknownFormat, garbageManifest
    }

    @Test(arguments: Fault.allCases)
    func brokenNewSetKeepsThePreviousSet(_ fault: Fault) async throws {
        let origin = try ScriptedOrigin()
        defer { origin.stop() }
        let directory = try TemporaryDirectory("sync-fault")
        defer { directory.remove() }
        let (v1, v2) = (Self.v1, Self.v2)
        origin.setHandler { v1.reply(to: $0) }
        let client = Self.client(origin, directory)
        _ = try await client.sync()
        let stateBefore = try #require(FileManager.default.contents(atPath: directory.path + "/state.json"))

        let changedFile = v2.files.keys.first { $0.hasPrefix("network-01.") }!
        origin.setHandler { request in
            let isChangedFile = request.path == "/" + changedFile
            switch fault {
            case .wrongHash where isChangedFile:
                return .init(
                    status: 200, body: Array(#"[{"trigger":{"url-filter":"tampered"},"action":{"type":"block"}}]"#.utf8)
                )
            case .truncatedBody where isChangedFile:
                var reply = v2.reply(to: request)
                reply.truncateTo = reply.body.count / 2
                return reply
            case .serverErrorOnFile where isChangedFile:
                return .init(status: 503)
            case .serverErrorOnManifest where request.path == "/manifest.json":
                return .init(status: 500)
            case .unknownFormat where request.path == "/manifest.json":
                return .init(status: 200, headers: [("ETag", "\"v3\"")], body: Array(#"{"format":2,"lists":[]}"#.utf8))
            case .garbageManifest where request.path == "/manifest.json":
                return .init(status: 200, headers: [("ETag", "\"v4\"")], body: Array("<html>maintenance</html>".utf8))
            default:
                return v2.reply(to: request)
            }
        }
        do {
            _ = try await client.sync()
            Issue.record("sync succeeded despite \(fault)")
        } catch let error as SyncError {
            switch (fault, error) {
            case (.wrongHash, .hashMismatch), (.truncatedBody, .transport), (.serverErrorOnFile, .fileStatus(_, 503)),
                (.serverErrorOnManifest, .manifestStatus(_, 500)), (.unknownFormat, .unknownManifestFormat(_, 2)),
                (.garbageManifest, .manifestUnreadable):
                break
            default:
                Issue.record("\(fault) gave an unexpected error: \(error)")
            }
            #expect(!error.description.isEmpty)
        }
        #expect(FileManager.default.contents(atPath: directory.path + "/state.json") == stateBefore)
        #expect(try directory.storedHashes().isSuperset(of: v1.hashes))

        // Once the origin is healthy again, the next sync completes and tidies.
        origin.setHandler { v2.reply(to: $0) }
        let report = try await client.sync()
        #expect(report.outcome == .updated)
        #expect(try directory.storedHashes() == v2.hashes)
    }

    @Test func filesResolveRelativeToTheManifestURL() async throws {
        let origin = try ScriptedOrigin()
        defer { origin.stop() }
        let directory = try TemporaryDirectory("sync-relative")
        defer { directory.remove() }
        let body = #"[{"trigger":{"url-filter":"x"},"action":{"type":"block"}}]"#
        let hash = SHA256Digest.hex(of: Array(body.utf8))
        let manifest =
            #"{"format":1,"lists":[{"id":"a","file":"a.json","sha256":"\#(hash)","rules":1},{"id":"b","file":"../shared/b.json","sha256":"\#(hash)","rules":1}]}"#
        origin.setHandler { request in
            switch request.path {
            case "/cdn/v1/manifest.json": return .init(status: 200, body: Array(manifest.utf8))
            case "/cdn/v1/a.json", "/cdn/shared/b.json": return .init(status: 200, body: Array(body.utf8))
            default: return .init(status: 404)
            }
        }
        let report = try await Self.client(origin, directory, path: "/cdn/v1/manifest.json").sync()
        // Both entries share one hash: fetched once, stored once.
        #expect(report.downloaded.count == 1)
        #expect(origin.requests.map(\.path) == ["/cdn/v1/manifest.json", "/cdn/v1/a.json"])
        #expect(report.recompile == ["a", "b"])
        #expect(try directory.storedHashes() == [hash])
    }

    @Test func missingStoreFileDropsTheValidatorAndRefetches() async throws {
        let origin = try ScriptedOrigin()
        defer { origin.stop() }
        let directory = try TemporaryDirectory("sync-repair")
        defer { directory.remove() }
        let site = Self.v1
        origin.setHandler { site.reply(to: $0) }
        let client = Self.client(origin, directory)
        _ = try await client.sync()
        let lost = site.hash(ofFileFor: "cosmetic")
        try FileManager.default.removeItem(atPath: directory.path + "/lists/\(lost).json")

        origin.clearLog()
        let report = try await client.sync()
        #expect(origin.requests.first?.headers["if-none-match"] == nil)
        #expect(report.downloaded.map(\.sha256) == [lost])
        #expect(try directory.storedHashes() == site.hashes)
    }

    @Test func damagedHeldFileIsReplacedOnTheNextNewManifest() async throws {
        let origin = try ScriptedOrigin()
        defer { origin.stop() }
        let directory = try TemporaryDirectory("sync-damaged")
        defer { directory.remove() }
        let (v1, v2) = (Self.v1, Self.v2)
        origin.setHandler { v1.reply(to: $0) }
        let client = Self.client(origin, directory)
        _ = try await client.sync()
        // network-00 is the same in both sets; damage the device's copy.
        let kept = v1.hash(ofFileFor: "network-00")
        try Data("garbage".utf8).write(to: directory.url.appendingPathComponent("lists/\(kept).json"))

        origin.setHandler { v2.reply(to: $0) }
        let report = try await client.sync()
        #expect(report.downloaded.map(\.sha256).contains(kept))
        #expect(report.reusedFiles == 0)
        #expect(try directory.storedHashes() == v2.hashes)
    }

    @Test func secondSyncOfTheSameStoreWaitsItsTurn() async throws {
        let origin = try ScriptedOrigin()
        defer { origin.stop() }
        let directory = try TemporaryDirectory("sync-lock")
        defer { directory.remove() }
        let site = Self.v1
        origin.setHandler { site.reply(to: $0) }
        let store = SyncStore(directory: directory.url)
        try store.prepare()
        let held = try store.lock()
        do {
            _ = try await Self.client(origin, directory).sync()
            Issue.record("a sync ran while another held the store")
        } catch let error as SyncError {
            guard case .store = error else {
                Issue.record("unexpected error \(error)")
                return
            }
        }
        #expect(origin.requests.isEmpty)
        held.release()
        let report = try await Self.client(origin, directory).sync()
        #expect(report.outcome == .updated)
    }

    @Test func commandPrintsAndExitsOneOnFailure() throws {
        let origin = try ScriptedOrigin()
        defer { origin.stop() }
        let directory = try TemporaryDirectory("sync-cli")
        defer { directory.remove() }
        let site = Self.v1
        origin.setHandler { site.reply(to: $0) }
        let url = origin.baseURL + "/manifest.json"
        #expect(
            ListServerCommandLine.run(["sync", "--manifest", url, "--dir", directory.path, "--allow-unsigned"]) == 0)
        #expect(try directory.storedHashes() == site.hashes)
        origin.setHandler { _ in .init(status: 502) }
        #expect(
            ListServerCommandLine.run(["sync", "--manifest", url, "--dir", directory.path, "--allow-unsigned"]) == 1)
        #expect(
            ListServerCommandLine.run(["sync", "--manifest", "ftp://x/manifest.json", "--dir", directory.path]) == 2)
        #expect(ListServerCommandLine.run(["sync", "--dir", directory.path]) == 2)
    }
}
