import Foundation
import HTTPServerCore
import TestSupport
import Testing

/// Generation swaps under load and graceful shutdown, over real sockets.
@Suite struct SocketLifecycleTests {
    /// Sends a request for the big resource and waits until its first bytes have arrived (MSG_PEEK
    /// leaves them for `readResponse`), so the response is in flight.
    private static func startDownload(_ client: RawHTTPClient, _ name: String) throws {
        try client.send("GET /\(name) HTTP/1.1\r\nHost: x\r\n\r\n")
        var peek = [UInt8](repeating: 0, count: 1024)
        #expect(recv(client.fd, &peek, peek.count, Int32(MSG_PEEK)) > 0)
    }

    @Test func swapDuringInFlightResponsesKeepsEachResponseWhole() throws {
        let (first, bigName, bigBytes) = CoreSite.withBig(tag: 1)
        let core = try CoreServer(site: first)
        defer { core.stop() }
        let slow = try core.client(timeout: 10)
        defer { slow.close() }
        try Self.startDownload(slow, bigName)

        let second = CoreSite(generation: "gen-2")
        core.server.install(second.staticSite)
        // Reads of the new manifest see only the new generation.
        #expect(try core.request("/manifest.json").body == second.identity("manifest.json"))
        #expect(try core.request("/\(bigName)").status == 404)
        // The in-flight download finishes with the old generation's exact bytes.
        let response = try slow.readResponse()
        #expect(response.status == 200)
        #expect(response.body == bigBytes)
    }

    @Test func everyResponseComesFromOneGeneration() throws {
        let core = try CoreServer()
        defer { core.stop() }
        let generations = (0..<4).map { CoreSite(generation: "swap-\($0)") }
        // Each generation's encoded manifest, by its bytes, to its ETag.
        var tags: [[UInt8]: String] = [:]
        for site in generations + [core.site] {
            tags[site.encoded("manifest.json")] = "\"\(CoreSite.tag(site.identity("manifest.json")))-gz\""
        }
        let sites = generations.map(\.staticSite)
        let stop = StopFlag()
        let swapper = Thread {
            var index = 0
            while !stop.isSet {
                core.server.install(sites[index % sites.count])
                index += 1
                Thread.sleep(forTimeInterval: 0.001)
            }
        }
        swapper.start()
        defer { stop.set() }
        let client = try core.client()
        defer { client.close() }
        for _ in 0..<300 {
            try client.send("GET /manifest.json HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
            let response = try client.readResponse()
            let tag = tags[response.body]
            #expect(tag != nil, "a body from no single generation")
            #expect(response.header("ETag") == tag, "the ETag of another generation than the body's")
        }
    }

    @Test func shutdownFinishesInFlightResponsesAndClosesIdleOnes() throws {
        let (site, bigName, bigBytes) = CoreSite.withBig(tag: 3)
        let core = try CoreServer(site: site)
        let idle = try core.client(timeout: 10)
        try idle.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try idle.readResponse().status == 200)
        let downloading = try core.client(timeout: 10)
        try Self.startDownload(downloading, bigName)

        let done = DispatchSemaphore(value: 0)
        Thread {
            core.server.shutdown(grace: 20)
            done.signal()
        }.start()
        #expect(idle.waitForClose())
        let response = try downloading.readResponse()
        #expect(response.status == 200)
        #expect(response.body == bigBytes)
        #expect(response.header("Connection") == nil)
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(throws: (any Error).self) { try core.client() }
    }

    @Test func shutdownGivesUpOnStalledClientsAfterTheGracePeriod() throws {
        let (site, bigName, _) = CoreSite.withBig(tag: 4)
        let core = try CoreServer(site: site)
        let stalled = try core.client(timeout: 10)
        defer { stalled.close() }
        try Self.startDownload(stalled, bigName)
        // The stalled download keeps a response in flight, so shutdown must use the whole grace
        // period and then give up: it returns no sooner than `grace`, and no later than the grace
        // plus a loop tick (250 ms) and a second of scheduling margin.
        let grace = 0.5
        let done = DispatchSemaphore(value: 0)
        let started = Date()
        Thread {
            core.server.shutdown(grace: grace)
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 10) == .success)
        let took = Date().timeIntervalSince(started)
        #expect(took >= grace, "shutdown returned after \(took) s, before the \(grace) s grace period")
        #expect(took <= grace + 0.25 + 1.0, "shutdown returned after \(took) s for a \(grace) s grace period")
        #expect(core.server.openConnections == 0)
    }
}
