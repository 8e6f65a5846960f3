import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin

#if canImport(Glibc)
    import Glibc
#endif

/// A follower stops within its shutdown grace even while a poll hangs on a primary that accepted
/// the request and never answers (the fetch timeout is far longer than the grace).
@Suite(.serialized) struct FollowerShutdownTests {
    @Test func sigtermEndsAFollowerWhosePollHangsWithinTheGrace() async throws {
        let key = try SigningOrigin.signer()
        let primary = try UpstreamServer()
        defer { primary.stop() }
        primary.set("/manifest.json", .hang)
        let scratch = ScratchDirectory("follower-shutdown")
        let directory = scratch.sub("follower")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let config = """
            {"publicDir": "public", "stateDir": "state",
             "fetch": {"connectTimeoutSeconds": 2, "totalTimeoutSeconds": 300},
             "http": {"shutdownGraceSeconds": 1},
             "follow": {"manifest": "\(primary.url("/manifest.json"))", "trustedKeys": ["\(key.key.publicKey.base64)"], "intervalSeconds": 60}}
            """
        try Array(config.utf8).write(to: directory + "/config.json")
        let follower = try ListServerProcess(directory: directory)
        let polling = try await eventually(timeout: 20, interval: 0.05) {
            !primary.requests(for: "/manifest.json").isEmpty
        }
        try #require(polling, "the follower never asked the primary")
        let started = Date()
        follower.process.signal(SIGTERM)
        let exited = await eventually(timeout: 20, interval: 0.05) { !follower.process.isRunning }
        let seconds = Date().timeIntervalSince(started)
        #expect(exited, "the follower still runs \(Int(seconds)) s after SIGTERM, waiting for its hanging poll")
        if exited { #expect(follower.process.wait() == 0) }
        // The grace (1 s) bounds the wait for the poll, plus the HTTP drain's own grace.
        #expect(seconds < 10, "exit took \(seconds) s")
    }
}
