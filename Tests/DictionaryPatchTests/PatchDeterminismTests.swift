import DictionaryPatch
import DictionaryPatchOrigin
import Foundation
import TestSupport
import Testing

/// Every origin fed the same lists writes the same patch bytes. The zstd CLI cannot reproduce our
/// parameters byte for byte, so our encoder is compared with itself: twice in this process, and
/// once in a separate process (`dcz encode`), which shares no state with this one.
@Suite struct PatchDeterminismTests {
    @Test func twoEncodingsOfTheSameListsAreEqual() throws {
        for pair in try RealListPairs.load().pairs {
            let first = try PatchEncoder().encode(from: pair.old, to: pair.new)
            let second = try PatchEncoder().encode(from: pair.old, to: pair.new)
            #expect(sameBytes(first, second), "\(pair.id): two encodings differ")
        }
    }

    @Test func aChildProcessWritesTheSameBytes() throws {
        let dcz = try DCZBinary.path()
        let scratch = ScratchDirectory("dcz-determinism")
        for pair in try RealListPairs.load().pairs.prefix(3) {
            let old = try scratch.write("\(pair.id).old", pair.old)
            let new = try scratch.write("\(pair.id).new", pair.new)
            let out = scratch.path + "/\(pair.id).dcz"
            let run = try ChildRun.run(dcz, ["encode", old, new, out])
            #expect(run.status == 0, "\(run.stderr)")
            let child = try Data(contentsOf: URL(fileURLWithPath: out))
            #expect(
                sameBytes(child, try PatchEncoder().encode(from: pair.old, to: pair.new)),
                "\(pair.id): the child's patch differs")

            let decoded = scratch.path + "/\(pair.id).decoded"
            let back = try ChildRun.run(dcz, ["decode", old, out, String(pair.new.count), decoded])
            #expect(back.status == 0, "\(back.stderr)")
            #expect(sameBytes(FileManager.default.contents(atPath: decoded), pair.new))
        }
    }
}
