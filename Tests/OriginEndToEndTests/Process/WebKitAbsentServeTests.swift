import Foundation
import ListSync
import OriginTestSupport
import TestSupport
import Testing
import WebKitCompiler

/// `listserver serve` on a machine without WebKitGTK (the library name pointed at a file that does
/// not exist): it runs either way; "auto" publishes without the gate, "on" publishes no new list
/// and says which package to install.
@Suite(.serialized) struct WebKitAbsentServeTests {
    static let missingWebKit = [WebKitCompiler.libraryVariable: "libwebkit2gtk-absent.so.0"]

    /// A config whose upstream is closed and whose snapshot is a one-rule list per upstream.
    static func writeConfig(_ scratch: ScratchDirectory, gate: String) throws {
        let closed = try UpstreamServer()
        closed.stop()
        for id in ["easylist", "easyprivacy"] {
            try Array("[Adblock Plus 2.0]\n||\(id)-ads.example^\n".utf8).write(to: scratch.sub("\(id).txt"))
        }
        try ListServerProcess.writeConfig(
            scratch.path, upstreamBase: "http://127.0.0.1:\(closed.port)", snapshotDirectory: scratch.path,
            verifyWithWebKit: gate)
    }

    static func log(_ scratch: ScratchDirectory) -> String {
        (try? String(contentsOfFile: scratch.sub("serve.err"), encoding: .utf8)) ?? ""
    }

    @Test func autoPublishesWithoutTheGate() async throws {
        let scratch = ScratchDirectory("webkit-absent-auto")
        try Self.writeConfig(scratch, gate: "auto")
        let server = try ListServerProcess(directory: scratch.path, environment: Self.missingWebKit)
        let manifest = try #require(
            try await ListServerProcess.waitFor200(server, "/manifest.json", seconds: 60),
            "the set is published: \(Self.log(scratch))")
        #expect(try JSONDecoder().decode(ListSyncManifest.self, from: manifest).lists.count >= 1)
        #expect(Self.log(scratch).contains("publishing without it"), "\(Self.log(scratch))")
        #expect(Self.log(scratch).contains("install the package libwebkit2gtk-4.1-0"))
        #expect(server.terminate() == 0)
    }

    @Test func onRejectsNewListsAndNamesThePackage() async throws {
        let scratch = ScratchDirectory("webkit-absent-on")
        try Self.writeConfig(scratch, gate: "on")
        let server = try ListServerProcess(directory: scratch.path, environment: Self.missingWebKit)
        let said = await eventually(timeout: 60) { Self.log(scratch).contains("lists are rejected until it works") }
        #expect(said, "\(Self.log(scratch))")
        #expect(Self.log(scratch).contains("install the package libwebkit2gtk-4.1-0"))
        // The server runs and answers, but serves no set: every list of the first set was rejected.
        #expect(try await ListServerProcess.request(server.url("/status")).0 == 200)
        #expect(try await ListServerProcess.request(server.url("/healthz")).0 == 503)
        #expect(server.terminate() == 0)
    }
}
