import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

/// A restarted origin answers with the validators it gave before the restart, for every file it
/// serves (manifest, lists, patches, signatures): a follower that kept the earlier values and the
/// restarted primary must agree, and a CDN revalidating with If-Modified-Since must get 304.
@Suite struct RestartValidatorTests {
    static func dates(_ set: PublishedSet) -> [String: Int] {
        var out: [String: Int] = [:]
        let content = set.content
        if let manifest = content.manifest {
            out["manifest.json"] = Int(manifest.lastModified.timeIntervalSince1970.rounded(.down))
        }
        for (name, entry) in content.files.merging(content.signatures, uniquingKeysWith: { first, _ in first }) {
            out[name] = Int(entry.lastModified.timeIntervalSince1970.rounded(.down))
        }
        return out
    }

    /// Published on earlier days (the files' mtimes are today), then read back as a restart does.
    @Test func everyFileKeepsItsLastModifiedAcrossARestart() throws {
        let key = try SigningOrigin.signer()
        let origin = SigningOrigin()
        let day = Date(timeIntervalSince1970: 1_603_065_600)
        _ = try origin.publish(key, tag: "one", now: day)
        let served = try origin.publish(key, tag: "two", now: day.addingTimeInterval(86_400))
        let before = Self.dates(served)
        #expect(before.keys.contains { $0.hasSuffix(".minisig") }, "the set serves its signatures")
        try origin.restart()
        let after = Self.dates(try #require(origin.current))
        #expect(after.keys.sorted() == before.keys.sorted())
        let changed = before.keys.sorted().filter { before[$0] != after[$0] }.map {
            "\($0): \(before[$0]!) → \(after[$0] ?? -1)"
        }
        #expect(changed.isEmpty, "Last-Modified changed across the restart: \(changed)")
    }
}
