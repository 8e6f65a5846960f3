import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

/// The versioned, crash-safe state directory.
@Suite struct StateTests {
    @Test func emptyDirectoryIsEmptyStateAndSaveRoundTrips() throws {
        let dir = ScratchDirectory()
        let store = StateStore(directory: dir.sub("state"))
        #expect(try store.load() == PersistentState())
        var state = PersistentState()
        state.upstreams["easylist"] = .init(
            etag: "\"e\"", lastModified: "Mon, 19 Oct 2020 00:45:29 GMT", source: "upstream",
            sourceDate: "2020-10-19T00:45:29Z", fetchedAt: Date(timeIntervalSince1970: 1_603_068_329),
            rules: 42, sha256: "ab")
        state.history = [
            .init(
                manifestSHA256: "cd", publishedAt: Date(timeIntervalSince1970: 1_603_068_330), supersededAt: nil,
                files: ["a.0123456789ab.json"])
        ]
        state.publishedSources = ["easylist": "ab"]
        try store.save(state)
        #expect(try store.load() == state)
        let text = try String(contentsOfFile: store.statePath, encoding: .utf8)
        #expect(text.contains("\"version\" : 1"))
    }

    @Test func newerStateVersionIsRefusedNamingTheVersion() throws {
        let dir = ScratchDirectory()
        let store = StateStore(directory: dir.path)
        try Array(#"{"version":7,"upstreams":{},"history":[]}"#.utf8).write(to: store.statePath)
        #expect(throws: StateError.newerVersion(path: store.statePath, found: 7, supported: 1)) { try store.load() }
        let message = StateError.newerVersion(path: store.statePath, found: 7, supported: 1).description
        #expect(message.contains("state version 7"))
        try Array("not json".utf8).write(to: store.statePath)
        #expect { try store.load() } throws: { error in
            guard case StateError.unreadable = error else { return false }
            return "\(error)".contains("move it aside")
        }
    }

    @Test func olderStateWithoutNewerFieldsStillLoads() throws {
        let dir = ScratchDirectory()
        let store = StateStore(directory: dir.path)
        try Array(#"{"version":1,"upstreams":{},"history":[]}"#.utf8).write(to: store.statePath)
        let state = try store.load()
        #expect(state.publishedSources == nil)
        #expect(state.lastRefreshAt == nil)
    }

    @Test func rejectedBodiesAreKeptNewestFirstAndBounded() throws {
        let dir = ScratchDirectory()
        let store = StateStore(directory: dir.path)
        for index in 0..<8 {
            try store.keepRejected(
                Array("body \(index)".utf8), upstreamID: "easylist",
                at: Date(timeIntervalSince1970: Double(1_000 + index)))
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: store.rejectedDirectory).sorted()
        #expect(names.count == StateStore.rejectedKept)
        #expect(names.first == "easylist-1003000.txt")
        #expect(names.last == "easylist-1007000.txt")
    }

    @Test func lastGoodCopyRoundTrips() throws {
        let dir = ScratchDirectory()
        let store = StateStore(directory: dir.path)
        #expect(store.lastGoodCopy("easylist") == nil)
        try store.saveLastGoodCopy(Array("[Adblock Plus 2.0]\n||a^\n".utf8), upstreamID: "easylist")
        #expect(store.lastGoodCopy("easylist") == Array("[Adblock Plus 2.0]\n||a^\n".utf8))
    }
}
