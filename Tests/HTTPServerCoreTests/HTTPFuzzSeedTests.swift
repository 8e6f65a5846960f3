import Foundation
import HTTPFuzz
import Testing

/// Every seed of `scripts/fuzz/http-corpus` through the fuzz entry point, so the entry point is
/// built and run by the test command and cannot rot. A broken invariant traps and fails the run.
@Suite struct HTTPFuzzSeedTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scripts/fuzz/http-corpus").standardizedFileURL

    @Test func everySeedRunsThroughTheFuzzEntryPoint() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).sorted()
        #expect(!names.isEmpty, "no seeds in \(Self.corpus.path)")
        for name in names {
            let bytes = try Data(contentsOf: Self.corpus.appendingPathComponent(name))
            bytes.withUnsafeBytes { fuzzHTTPRequest($0) }
            // Every prefix too: heads arrive in pieces on a real connection.
            for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 16)) {
                bytes.prefix(cut).withUnsafeBytes { fuzzHTTPRequest($0) }
            }
        }
    }
}
