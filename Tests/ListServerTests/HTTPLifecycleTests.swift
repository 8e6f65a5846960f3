import Foundation
import ListFormat
import Testing
@testable import ListOrigin

/// Generation swaps under load and graceful shutdown.
@Suite struct HTTPLifecycleTests {
    /// A content set with one large file, so a download is still in flight when things change.
    static func bigContent(tag: UInt8) throws -> (SiteContent, name: String, bytes: [UInt8]) {
        var content = try ServerHarness.sampleContent(generation: "gen-\(tag)")
        // Larger than the loopback socket buffers on both sides together (~10 MB), so the server
        // is still writing while the client has not read.
        var big = [UInt8](repeating: 0x20 &+ tag, count: 24 << 20)
        for index in stride(from: 0, to: big.count, by: 4093) { big[index] = UInt8(truncatingIfNeeded: index >> 12) }
        let hash = SHA256Digest.hex(of: big)
        let name = "big.\(hash.prefix(12)).json"
        content.files[name] = SiteContent.Entry(name: name, identity: big, gzip: nil, sha256: hash, lastModified: Date())
        return (content, name, big)
    }

    @Test func swapDuringInFlightResponsesKeepsEachResponseWhole() throws {
        let (first, bigName, bigBytes) = try Self.bigContent(tag: 1)
        let harness = try ServerHarness(content: first)
        defer { harness.stop() }
        let slow = try harness.client(timeout: 10)
        defer { slow.close() }
        try slow.send("GET /\(bigName) HTTP/1.1\r\nHost: x\r\n\r\n")
        var peek = [UInt8](repeating: 0, count: 1024)
        #expect(recv(slow.fd, &peek, peek.count, Int32(MSG_PEEK)) > 0)

        let second = try ServerHarness.sampleContent(generation: "gen-2")
        harness.server.install(second)
        // Reads of the new manifest see only the new generation.
        let manifest = try harness.request("/manifest.json")
        #expect(manifest.body == second.manifest!.identity)
        #expect(try harness.request("/\(bigName)").status == 404)
        // The in-flight download finishes with the old generation's exact bytes.
        let response = try slow.readResponse()
        #expect(response.status == 200)
        #expect(response.body == bigBytes)
    }

    @Test func everyResponseComesFromOneGeneration() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let generations = try (0..<4).map { try ServerHarness.sampleContent(generation: "swap-\($0)") }
        let manifests = Set(generations.map { $0.manifest!.identity } + [harness.content.manifest!.identity])
        let stop = LockedLines()
        let swapper = Thread {
            var index = 0
            while stop.all.isEmpty {
                harness.server.install(generations[index % generations.count])
                index += 1
                Thread.sleep(forTimeInterval: 0.001)
            }
        }
        swapper.start()
        defer { stop.append("stop") }
        let client = try harness.client()
        defer { client.close() }
        for _ in 0..<300 {
            try client.send("GET /manifest.json HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
            let response = try client.readResponse()
            let decoded = try Gzip.decompress(response.body, limit: 1 << 20)
            #expect(manifests.contains(decoded))
            #expect(response.header("ETag") == "\"\(SHA256Digest.hex(of: decoded).prefix(16))-gz\"")
        }
    }

    @Test func shutdownFinishesInFlightResponsesAndClosesIdleOnes() throws {
        let (content, bigName, bigBytes) = try Self.bigContent(tag: 3)
        let harness = try ServerHarness(content: content)
        let idle = try harness.client(timeout: 10)
        try idle.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try idle.readResponse().status == 200)
        let downloading = try harness.client(timeout: 10)
        try downloading.send("GET /\(bigName) HTTP/1.1\r\nHost: x\r\n\r\n")
        var peek = [UInt8](repeating: 0, count: 1024)
        #expect(recv(downloading.fd, &peek, peek.count, Int32(MSG_PEEK)) > 0)

        let done = DispatchSemaphore(value: 0)
        Thread {
            harness.server.shutdown(grace: 20)
            done.signal()
        }.start()
        #expect(idle.waitForClose())
        let response = try downloading.readResponse()
        #expect(response.status == 200)
        #expect(response.body == bigBytes)
        #expect(response.header("Connection") == nil)
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(throws: (any Error).self) { try harness.client() }
    }

    @Test func shutdownGivesUpOnStalledClientsAfterTheGracePeriod() throws {
        let (content, bigName, _) = try Self.bigContent(tag: 4)
        let harness = try ServerHarness(content: content)
        let stalled = try harness.client(timeout: 10)
        defer { stalled.close() }
        try stalled.send("GET /\(bigName) HTTP/1.1\r\nHost: x\r\n\r\n")
        var peek = [UInt8](repeating: 0, count: 16)
        #expect(recv(stalled.fd, &peek, peek.count, Int32(MSG_PEEK)) > 0)
        // The stalled download keeps a response in flight, so shutdown must use the whole grace
        // period and then give up: it returns no sooner than `grace`, and no later than the grace
        // plus a loop tick (250 ms) and a second of scheduling margin.
        let grace = 0.5
        let done = DispatchSemaphore(value: 0)
        let started = Date()
        Thread {
            harness.server.shutdown(grace: grace)
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 10) == .success)
        let took = Date().timeIntervalSince(started)
        #expect(took >= grace, "shutdown returned after \(took) s, before the \(grace) s grace period")
        #expect(took <= grace + 0.25 + 1.0, "shutdown returned after \(took) s for a \(grace) s grace period")
        #expect(harness.server.openConnections == 0)
    }
}
