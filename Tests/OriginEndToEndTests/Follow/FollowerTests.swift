import Foundation
import ListOrigin
import OriginTestSupport
import TestSupport
import Testing

/// Follower mode with real processes and sockets: a converting `listserver serve` (the primary)
/// publishes the 2020-10 daily chain, a following `listserver serve` mirrors it, and after every
/// publish both public directories hold the same bytes and both origins answer every file with the
/// same head apart from Date. `LISTSERVER_FOLLOW_DAYS` (default 3, at most 11) sets how many days of
/// 2020-10-19…29 run; `scripts/follower-chain.sh` runs all of them.
@Suite(.serialized) struct FollowerTests {

    @Test func aFollowerServesThePrimarysBytesAndValidatorsAfterEveryPublishOfTheChain() async throws {
        let days = min(11, max(2, Int(ProcessInfo.processInfo.environment["LISTSERVER_FOLLOW_DAYS"] ?? "") ?? 3))
        let scratch = ScratchDirectory("follower-chain")
        let (primary, primaryDir, upstream) = try await FollowerSupport.startPrimary(scratch)
        let followerDir = scratch.sub("follower")
        try FollowerSupport.writeFollowerConfig(
            followerDir, manifest: "http://127.0.0.1:\(primary.port)/manifest.json",
            keys: [try FollowerSupport.publicKey(port: primary.port)])
        let follower = try ListServerProcess(directory: followerDir)

        for index in 0..<days {
            if index > 0 {
                let before = try RawHTTPResponse.get(port: primary.port, path: "/manifest.json").body
                try FollowerSupport.serveDay(upstream, index)
                #expect(
                    try await ListServerProcess.request(
                        primary.url("/admin/refresh"), method: "POST", headers: ["Authorization": "Bearer t"]
                    ).0 == 202)
                let published = try await eventually(timeout: 180, interval: 0.2) {
                    try RawHTTPResponse.get(port: primary.port, path: "/manifest.json").body != before
                }
                try #require(published, "the primary never published \(FollowerSupport.day(index))")
            }
            let manifest = try RawHTTPResponse.get(port: primary.port, path: "/manifest.json").body
            let followed = try await eventually(timeout: 60, interval: 0.2) {
                try RawHTTPResponse.get(port: follower.port, path: "/manifest.json").body == manifest
            }
            let followState = (try? FollowerSupport.follow(port: follower.port)) ?? [:]
            try #require(
                followed,
                "the follower never served the primary's \(FollowerSupport.day(index)) manifest: \(followState)")
            let primaryFiles = FollowerSupport.servedFiles(primaryDir + "/public")
            let followerFiles = FollowerSupport.servedFiles(followerDir + "/public")
            #expect(
                primaryFiles.keys.sorted() == followerFiles.keys.sorted(),
                "\(FollowerSupport.day(index)): the same file names")
            let differing = primaryFiles.keys.filter { followerFiles[$0] != primaryFiles[$0] }.sorted()
            #expect(differing.isEmpty, "\(FollowerSupport.day(index)): files whose bytes differ: \(differing)")
            #expect(
                primaryFiles.keys.contains { $0.hasSuffix(".dcz") } || index == 0,
                "\(FollowerSupport.day(index)): the chain has patches to mirror")
            let heads = try FollowerSupport.headerDifferences(
                names: FollowerSupport.servedNames(primaryFiles), primary: primary.port, follower: follower.port)
            #expect(heads.isEmpty, "\(FollowerSupport.day(index)): \(heads.prefix(3))")
        }
        #expect(follower.terminate() == 0)
        #expect(primary.terminate() == 0)
    }
}
