import Foundation
import OriginTestSupport
import TestSupport
import Testing

/// A list with more network blocks or hiding rules than the layout can ever hold fails with its message, and is
/// refused while it is converted, not after it was all held: past the lines read before the
/// refusal, each further input line costs the process only its own bytes and its line range (16
/// bytes), never its converted rule (about 500 bytes a rule when the refusal came from layout).
/// Both shapes: distinct `||hN.example^` blocks, and distinct `sN.example##.ad` hiding rules.
/// Measured in child `listserver convert` processes (peak RSS from `/usr/bin/time`), with
/// `--chunk-size 1000` (16 lists of 1,000 rules) so the refusal comes early in both inputs.
@Suite(.serialized) struct HostileListMemoryTests {
    /// Hostile shapes: distinct network blocks, and distinct site hiding rules (all for one selector).
    static let shapes: [(name: String, prefix: String, suffix: String)] = [
        ("hosts", "||h", ".example^"),
        ("site-hiding", "s", ".example##.ad"),
    ]

    /// `lines` distinct lines `prefix` N `suffix`; the file's path and size.
    static func hostileList(_ scratch: ScratchDirectory, prefix: String, suffix: String, lines: Int) throws -> (
        path: String, bytes: Int
    ) {
        let path = scratch.path + "/hostile-\(lines).txt"
        let made = try ChildRun.shell(
            "awk 'BEGIN { print \"[Adblock Plus 2.0]\"; for (i = 0; i < \(lines); i++) print \"\(prefix)\" i \"\(suffix)\" }' > '\(path)'"
        )
        try #require(made.status == 0, "\(made.stderr)")
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        return (path, try #require(size))
    }

    /// Peak RSS in bytes of `listserver convert` on `input`, and its stderr.
    static func convertPeak(_ binary: String, input: String, out: String) throws -> (
        peak: Int, stderr: String, status: Int32
    ) {
        let run = try ChildRun.run(
            "/usr/bin/time",
            [
                "-f", "maxrss-kb=%M", binary, "convert", "--input", input, "--out", out,
                "--chunk-size", "1000",
            ], timeout: 600)
        let peak = try #require(
            run.stderr.split(separator: "\n").last { $0.hasPrefix("maxrss-kb=") }.flatMap { Int($0.dropFirst(10)) })
        return (peak * 1024, run.stderr, run.status)
    }

    @Test(arguments: shapes.indices)
    func aListTooLargeForTheLayoutFailsWithItsMessageAndItsMemoryStopsGrowingAtTheRefusal(shape: Int) throws {
        let (shapeName, prefix, suffix) = Self.shapes[shape]
        let binary = try ListServerBinary.path()
        let scratch = ScratchDirectory("hostile-memory-\(shapeName)")
        let small = try Self.hostileList(scratch, prefix: prefix, suffix: suffix, lines: 300_000)
        let large = try Self.hostileList(scratch, prefix: prefix, suffix: suffix, lines: 1_500_000)
        var peaks: [Int] = []
        for (input, name) in [(small, "small"), (large, "large")] {
            let run = try Self.convertPeak(binary, input: input.path, out: scratch.path + "/out-\(name)")
            #expect(run.status == 1, "\(name): \(run.stderr)")
            #expect(run.stderr.contains("the rules do not fit the list limits"), "\(name): \(run.stderr)")
            #expect(run.stderr.contains("raise --chunk-size or the list limit"), "\(name): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path + "/out-\(name)/manifest.json"))
            peaks.append(run.peak)
        }
        // The large list's extra lines may cost their bytes and line ranges, twice over for
        // allocator and array growth; not their rules.
        let extraLines = 1_200_000
        let allowed = 2 * ((large.bytes - small.bytes) + 16 * extraLines)
        print(
            "\(shapeName): hostile lists refused: peak RSS \(peaks[0] >> 20) MiB (300,000 lines), \(peaks[1] >> 20) MiB (1,500,000 lines); "
                + "growth \((peaks[1] - peaks[0]) >> 20) MiB, allowed \(allowed >> 20) MiB")
        #expect(
            peaks[1] - peaks[0] <= allowed,
            "peak RSS grew by \(peaks[1] - peaks[0]) bytes for 1,200,000 more lines past the refusal")
    }
}
