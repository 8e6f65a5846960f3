import Foundation
import ListFormat
import OriginTestSupport
import TestSupport
import Testing

/// A follower reads its primary's `/sets/` at every poll, without a restart: a set the primary adds
/// is followed and served, signed as the primary serves it; a set the primary no longer lists is no
/// longer served, as on the primary. Real `listserver serve` processes on loopback: the primary is
/// restarted on the same port with a changed `sets`.
@Suite(.serialized) struct FollowerSetChangeTests {
    static func writePrimaryConfig(_ directory: String, upstream: UpstreamServer, snapshot: String, sets: [String])
        throws
    {
        let entries = sets.map { name in
            let upstreams = name == "lite" ? #"["easylist"]"# : #"["easylist", "easyprivacy"]"#
            return #"{"name": "\#(name)", "upstreams": \#(upstreams)}"#
        }
        try ListServerProcess.writeConfig(
            directory, upstreamBase: "http://127.0.0.1:\(upstream.port)", snapshotDirectory: snapshot,
            extra: #", "sets": [\#(entries.joined(separator: ", "))]"#)
    }

    static func setNames(_ port: Int) throws -> [String] {
        let response = try RawHTTPResponse.get(port: port, path: "/sets/")
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
        return (object["sets"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    @Test func aFollowerFollowsASetThePrimaryAddsAndStopsServingOneItDrops() async throws {
        let scratch = ScratchDirectory("follower-set-change")
        let snapshot = scratch.sub("snapshot")
        try ListServerProcess.smallSnapshot(snapshot)
        let upstream = try UpstreamServer()
        defer { upstream.stop() }
        for id in ["easylist", "easyprivacy"] {
            upstream.set(
                "/\(id).txt", .serve(body: Array(try Data(contentsOf: URL(fileURLWithPath: "\(snapshot)/\(id).txt")))))
        }
        let directory = scratch.sub("primary")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Self.writePrimaryConfig(directory, upstream: upstream, snapshot: snapshot, sets: ["default"])
        var primary = try ListServerProcess(directory: directory, timeout: 120)
        defer { _ = primary.terminate() }
        try #require(try await ListServerProcess.waitFor200(primary, "/manifest.json", seconds: 120) != nil)
        let port = primary.port
        let key = try FollowerSupport.publicKey(port: port)
        let followerDirectory = scratch.sub("follower")
        try FollowerSupport.writeFollowerConfig(
            followerDirectory, manifest: primary.url("/manifest.json").absoluteString, keys: [key])
        let follower = try ListServerProcess(directory: followerDirectory, timeout: 60)
        defer { _ = follower.terminate() }
        try #require(try await ListServerProcess.waitFor200(follower, "/manifest.json", seconds: 60) != nil)
        #expect(try Self.setNames(follower.port) == ["default"])

        // The primary adds a set: the follower mirrors it at its next polls, without a restart.
        #expect(primary.terminate() == 0)
        try Self.writePrimaryConfig(directory, upstream: upstream, snapshot: snapshot, sets: ["default", "lite"])
        primary = try ListServerProcess(directory: directory, timeout: 120, port: port)
        try #require(try await ListServerProcess.waitFor200(primary, "/sets/lite/manifest.json", seconds: 120) != nil)
        let mirrored = try await eventually(timeout: 60) {
            let theirs = try RawHTTPResponse.get(port: follower.port, path: "/sets/lite/manifest.json")
            let ours = try RawHTTPResponse.get(port: port, path: "/sets/lite/manifest.json")
            return theirs.status == 200 && theirs.body == ours.body
        }
        #expect(mirrored, "the follower never served the set its primary added")
        _ = try SetsTests.verifiedManifest(follower, path: "/sets/lite/manifest.json", publicKey: key, scratch: scratch)
        #expect(try Self.setNames(follower.port) == ["default", "lite"])
        let setStatus = try #require(
            try JSONSerialization.jsonObject(
                with: Data(RawHTTPResponse.get(port: follower.port, path: "/status?set=lite").body)) as? [String: Any])
        let follow = setStatus["follow"] as? [String: Any] ?? [:]
        #expect(
            ["installed", "not-modified"].contains(follow["lastResult"] as? String ?? "")
                && follow["primary"] as? String == primary.url("/sets/lite/manifest.json").absoluteString,
            "the new set's own follow status: \(follow)")
        let liteLists = try Manifest.decode(
            Data(RawHTTPResponse.get(port: port, path: "/sets/lite/manifest.json").body)
        ).lists.map(\.file)
        #expect(
            (setStatus["lists"] as? [[String: Any]])?.compactMap { $0["file"] as? String } == liteLists,
            "the set's page lists the set's own lists")

        // The primary drops it: the follower stops serving it too, and keeps serving the default set.
        #expect(primary.terminate() == 0)
        try Self.writePrimaryConfig(directory, upstream: upstream, snapshot: snapshot, sets: ["default"])
        primary = try ListServerProcess(directory: directory, timeout: 120, port: port)
        try #require(try await ListServerProcess.waitFor200(primary, "/manifest.json", seconds: 120) != nil)
        #expect(try RawHTTPResponse.get(port: port, path: "/sets/lite/manifest.json").status == 404)
        let dropped = try await eventually(timeout: 60) {
            try RawHTTPResponse.get(port: follower.port, path: "/sets/lite/manifest.json").status == 404
        }
        #expect(dropped, "the follower still serves a set its primary no longer lists")
        #expect(try Self.setNames(follower.port) == ["default"])
        #expect(try RawHTTPResponse.get(port: follower.port, path: "/manifest.json").status == 200)
        #expect(
            FileManager.default.fileExists(atPath: followerDirectory + "/public/sets/lite/manifest.json"),
            "its files stay on disk, for a primary that lists it again")
    }
}
