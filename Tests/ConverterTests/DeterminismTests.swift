@testable import Converter
import CNIOShim
import Foundation
import Testing

/// The same input and previous layout give byte-identical output: no dictionary order, dates or randomness.
@Suite struct DeterminismTests {
    typealias F = LayoutFixture

    func gzip(_ bytes: [UInt8]) throws -> [UInt8] { try ListConverterTests.gzip(bytes) }

    @Test func twoRunsGiveIdenticalBytesAndGzip() throws {
        var rules = F.mixed()
        rules.cosmetic += (0..<200).map { F.except(".x\($0 % 30)", ["e\($0 % 7).org", "f.org"]) }
        let converter = ListConverter()
        let first = try converter.assemble(rules, sourceReports: [], previousLayout: nil)
        let second = try converter.assemble(rules, sourceReports: [], previousLayout: nil)
        #expect(first.lists == second.lists)
        #expect(first.layoutState == second.layoutState)
        for (left, right) in zip(first.lists, second.lists) {
            #expect(try gzip(left.json) == gzip(right.json))
        }
        let third = try converter.assemble(rules, sourceReports: [], previousLayout: first.layoutState)
        let fourth = try converter.assemble(rules, sourceReports: [], previousLayout: first.layoutState)
        #expect(third.lists == fourth.lists && third.layoutState == fourth.layoutState)
    }

    /// Dictionaries hash with a per-process random seed; a child process with its own seed (and one
    /// with `SWIFT_DETERMINISTIC_HASHING`) must give the same bytes. Runs this test binary's
    /// `LISTSERVER_DETERMINISM_CHILD` mode, which prints a digest of the output.
    @Test func otherProcessesWithOtherHashSeedsGiveIdenticalBytes() throws {
        if ProcessInfo.processInfo.environment["LISTSERVER_DETERMINISM_CHILD"] != nil { return }
        let own = try Self.digest()
        let executable = try #require(Bundle.main.executablePath ?? CommandLine.arguments.first)
        for deterministic in [false, true] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["--testing-library", "swift-testing", "--filter", "DeterminismTests/childDigest"]
            var environment = ProcessInfo.processInfo.environment
            environment["LISTSERVER_DETERMINISM_CHILD"] = "1"
            if deterministic { environment["SWIFT_DETERMINISTIC_HASHING"] = "1" }
            process.environment = environment
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            try #require(output.contains("DIGEST="), "child test process printed no digest; output: \(output.prefix(400))")
            #expect(output.contains("DIGEST=\(own)"))
        }
    }

    @Test func childDigest() throws {
        guard ProcessInfo.processInfo.environment["LISTSERVER_DETERMINISM_CHILD"] != nil else { return }
        print("DIGEST=\(try Self.digest())")
    }

    static func digest() throws -> String {
        var rules = F.mixed()
        rules.cosmetic += (0..<200).map { F.except(".x\($0 % 30)", ["e\($0 % 7).org", "f.org"]) }
        let output = try ListConverter().assemble(rules, sourceReports: [], previousLayout: nil)
        var all: [UInt8] = output.layoutState
        for list in output.lists { all += Array(list.id.utf8) + list.json }
        let hash = all.withUnsafeBufferPointer { FNV1a.hash($0) }
        return String(hash, radix: 16) + "-\(all.count)"
    }
}
