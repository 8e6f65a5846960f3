import ConverterFuzz
import Foundation
import Testing

/// The converter's fuzz entry point, run over the committed seed corpus (Tests/Fixtures/fuzz/converter)
/// on every test run, so the entry point keeps compiling and keeps checking: the libFuzzer build
/// (scripts/fuzz/run-converter-fuzz.sh) runs the same `ConverterFuzz` sources over millions of inputs.
@Suite struct ConverterFuzzSeedTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz/converter")

    @Test func everySeedConvertsToValidLists() throws {
        let seeds = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).sorted()
        try #require(seeds.count >= 20, "the seed corpus is missing: \(Self.corpus.path)")
        for seed in seeds {
            let bytes = Array(try Data(contentsOf: Self.corpus.appendingPathComponent(seed)))
            #expect(ConverterFuzz.problem(in: bytes) == nil, "seed \(seed)")
        }
    }

    /// Inputs with no rule at all are not a problem (the converter's `nothingToConvert` is expected there).
    @Test func theEntryPointAcceptsEmptyAndCommentOnlyInput() {
        #expect(ConverterFuzz.problem(in: []) == nil)
        #expect(ConverterFuzz.problem(in: Array("[Adblock Plus 2.0]\n! only a comment\n".utf8)) == nil)
    }
}
