import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin

/// `/explain` on a follower attributes a rule to the same upstream lines as on its primary: the
/// follower mirrors the primary's `provenance.txt` (and `report.json`) with each set.
@Suite(.serialized) struct FollowerExplainTests {
    /// `/explain` for `url` with the admin token, once the engine has loaded (503 while it loads).
    static func explain(port: Int, _ url: String) async throws -> [String: Any] {
        let target = ExplainFixture.query(url)
        var body: [String: Any] = [:]
        _ = try await eventually(timeout: 60, interval: 0.1) {
            let response = try RawHTTPResponse.get(port: port, path: target, headers: ["Authorization": "Bearer t"])
            body = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
            return response.status == 200
        }
        return body
    }

    @Test func aFollowersExplainAttributesRulesLikeItsPrimary() async throws {
        let scratch = ScratchDirectory("follower-explain")
        let (primary, _, upstream) = try await FollowerSupport.startPrimary(scratch)
        defer { withExtendedLifetime(upstream) {} }  // the primary refreshes from it throughout
        try FollowerSupport.writeFollowerConfig(
            scratch.sub("follower"), manifest: "http://127.0.0.1:\(primary.port)/manifest.json",
            keys: [try FollowerSupport.publicKey(port: primary.port)])
        let follower = try ListServerProcess(
            directory: scratch.sub("follower"), environment: ["LISTSERVER_ADMIN_TOKEN": "t"])
        let manifest = try RawHTTPResponse.get(port: primary.port, path: "/manifest.json").body
        try #require(
            try await eventually(timeout: 60, interval: 0.2) {
                try RawHTTPResponse.get(port: follower.port, path: "/manifest.json").body == manifest
            })

        for url in [
            "https://pagead2.googlesyndication.com/pagead/js/adsbygoogle.js",
            "https://www.google-analytics.com/analytics.js",
        ] {
            let onPrimary = try await Self.explain(port: primary.port, url)
            let onFollower = try await Self.explain(port: follower.port, url)
            let text = { (object: [String: Any]) in
                String(
                    decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data(),
                    as: UTF8.self)
            }
            #expect(text(onPrimary).contains("complete"), "the primary has provenance: \(text(onPrimary).prefix(600))")
            #expect(
                text(onFollower) == text(onPrimary),
                "\(url): follower \(text(onFollower).prefix(600)) vs primary \(text(onPrimary).prefix(600))")
        }
        #expect(follower.terminate() == 0)
        #expect(primary.terminate() == 0)
    }
}
