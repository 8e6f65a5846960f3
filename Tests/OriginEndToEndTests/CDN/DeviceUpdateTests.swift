import Converter
import Foundation
import ListSync
import OriginTestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

/// What a device pays for a daily update, on the real EasyList/EasyPrivacy daily versions
/// 2020-10-19…29 (every consecutive pair): each day is converted with the previous day's layout (as `listserver convert --previous` does),
/// published, served by `HTTPServer`, and synced by one device. The device must download exactly
/// the files whose hash changed, and nothing else.
@Suite(.serialized) struct DeviceUpdateTests {
    static let fixtures = VarnishCDN.repositoryRoot + "/Tests/Fixtures/lists"

    struct Day {
        var label: String
        var plan: PublishPlan
    }

    /// Converts the days in order, each with the layout state of the day before.
    static func publishChain(_ days: [String]) throws -> [Day] {
        var previousLayout: [UInt8]?
        var result: [Day] = []
        for day in days {
            var sources: [FilterListSource] = []
            for id in ["easylist", "easyprivacy"] {
                let path = "\(fixtures)/\(id)-\(day).txt"
                let bytes = try #require(FileManager.default.contents(atPath: path), "missing fixture \(path)")
                sources.append(FilterListSource(id: id, bytes: Array(bytes)))
            }
            let output = try ListConverter().convert(sources, previousLayout: previousLayout)
            previousLayout = output.layoutState
            result.append(Day(label: day, plan: try PublishPlan.make(from: output)))
        }
        return result
    }

    @Test func dailyUpdatesDownloadExactlyTheChangedFiles() async throws {
        let days = try Self.publishChain((19...29).map { "2020-10-\($0)" })
        let origin = try OriginForTests()
        defer { origin.stop() }
        let device = try TemporaryDirectory("device-daily")
        defer { device.remove() }
        let client = SyncClient(
            manifestURL: URL(string: origin.baseURL + "/manifest.json")!,
            store: SyncStore(directory: device.url), trust: .unsignedAllowed, options: .init(timeout: 30))

        var previous: PublishedSetForTests?
        print("day         files  changed  downloaded-bytes  transferred-bytes  recompiled  recompiled-rules")
        for day in days {
            let set = PublishedSetForTests(plan: day.plan)
            origin.install(set)
            let requestsBefore = origin.requests.count
            let report = try await client.sync()
            let expectedNew = set.hashes.subtracting(previous?.hashes ?? [])
            #expect(
                Set(report.downloaded.map(\.sha256)) == expectedNew,
                "\(day.label): downloaded something other than the changed files")
            #expect(report.downloaded.count == expectedNew.count, "\(day.label): a file was downloaded twice")
            // The origin's own access log agrees: the manifest, then only the new files.
            // This origin serves no patches: the derived patch names the device asks for first are 404s.
            let fileRequests = origin.requests.dropFirst(requestsBefore).filter {
                $0.path != "/manifest.json" && !$0.path.hasSuffix(".dcz")
            }
            let newPaths = Set(set.lists.filter { expectedNew.contains($0.sha256) }.map { "/" + $0.fileName })
            #expect(
                fileRequests.count == expectedNew.count && Set(fileRequests.map(\.path)).isSubset(of: newPaths),
                "\(day.label): origin saw \(fileRequests)")
            let before = Dictionary(uniqueKeysWithValues: (previous?.lists ?? []).map { ($0.id, $0.sha256) })
            #expect(report.recompile == set.lists.filter { before[$0.id] != $0.sha256 }.map(\.id))
            #expect(try device.storedHashes() == set.hashes)
            let recompiledRules = set.lists.filter { report.recompile.contains($0.id) }.reduce(0) { $0 + $1.rules }
            print(
                "\(day.label)  \(set.lists.count)  \(expectedNew.count)  \(report.downloadedBytes)  \(report.transferredBytes)  \(report.recompile.count)  \(recompiledRules)"
            )
            previous = set
        }
    }
}
