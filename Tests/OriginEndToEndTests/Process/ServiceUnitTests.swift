import Foundation
import OriginTestSupport
import TestSupport
import Testing

/// deploy/listserver.service is a unit systemd accepts, and its sandbox rates an exposure of 2.5 or
/// lower in `systemd-analyze security`. systemd need not be running.
@Suite struct ServiceUnitTests {
    static let unit = Repository.root.appendingPathComponent("deploy/listserver.service")
    static let analyze = "/usr/bin/systemd-analyze"

    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        // One pipe for both streams, in the order systemd-analyze wrote them.
        let finished = try ChildRun.run("/bin/sh", ["-c", #"exec "$0" "$@" 2>&1"#, Self.analyze] + arguments)
        return (finished.status, finished.stdoutText)
    }

    /// `verify` under a scratch root that holds systemd's own units, the unit, and the built binary
    /// at the path ExecStart names, so the check covers the binary's presence too.
    @Test func systemdVerifiesTheUnit() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.analyze),
            "systemd-analyze is missing: apt-get install -y systemd")
        let text = try String(contentsOf: Self.unit, encoding: .utf8)
        let execStart = try #require(text.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let binaryPath = String(execStart.dropFirst("ExecStart=".count).split(separator: " ")[0])
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("unit-root-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let fileManager = FileManager.default
        try fileManager.createDirectory(
            at: root.appendingPathComponent("usr/lib/systemd"), withIntermediateDirectories: true)
        try fileManager.copyItem(
            atPath: "/usr/lib/systemd/system", toPath: root.appendingPathComponent("usr/lib/systemd/system").path)
        try fileManager.createDirectory(
            at: root.appendingPathComponent("etc/systemd/system"), withIntermediateDirectories: true)
        try fileManager.copyItem(
            at: Self.unit, to: root.appendingPathComponent("etc/systemd/system/listserver.service"))
        let installed = root.appendingPathComponent(String(binaryPath.dropFirst()))
        try fileManager.createDirectory(at: installed.deletingLastPathComponent(), withIntermediateDirectories: true)
        try fileManager.copyItem(atPath: try ListServerBinary.path(), toPath: installed.path)
        let verified = try run(["verify", "--root=\(root.path)", "listserver.service"])
        #expect(verified.status == 0, "systemd-analyze verify: \(verified.output)")
        #expect(!verified.output.contains("Unknown"), "every directive is known to systemd: \(verified.output)")
    }

    @Test func theSandboxRatesAnExposureOfAtMostTwoPointFive() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.analyze),
            "systemd-analyze is missing: apt-get install -y systemd")
        let rated = try run(["security", "--offline=true", Self.unit.path])
        let line = try #require(
            rated.output.split(separator: "\n").first { $0.contains("Overall exposure level") }, "\(rated.output)")
        let figure = try #require(
            line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }, "\(line)")
        print("systemd-analyze security --offline=true deploy/listserver.service: \(figure)")
        #expect(figure <= 2.5, "\(rated.output)")
    }
}
