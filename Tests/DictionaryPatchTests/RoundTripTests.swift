import DictionaryPatch
import DictionaryPatchOrigin
import Foundation
import ListFormat
import TestSupport
import Testing

/// Patches between the real 2020-10-19 and -20 outputs of the converter, decoded by our decoder and
/// by the real `zstd` CLI.
@Suite struct RoundTripTests {
    @Test func everyChangedRealListRoundTripsToTheExactBytes() throws {
        let lists = try RealListPairs.load()
        #expect(lists.pairs.count >= 3, "10-19 → 10-20 changes several lists; found \(lists.pairs.map(\.id))")
        for pair in lists.pairs {
            let patch = try PatchEncoder().encode(from: pair.old, to: pair.new)
            let decoded = try PatchDecoder().apply(
                Data(patch), to: Data(pair.old), expectedBytes: pair.new.count,
                expectedSHA256: SHA256Digest.hex(SHA256Digest.of(pair.new)))
            #expect(sameBytes(decoded, pair.new), "\(pair.id) did not round-trip")
        }
    }

    /// The zstd CLI decodes the body after the 40-byte header with the old list as dictionary, the
    /// whole dcz body too (a plain zstd decoder skips the skippable frame), and refuses the body
    /// without the dictionary (so the patch really is relative to the old version). The header's hash
    /// is `sha256sum` of the old list.
    @Test func theZstdCLIAppliesThePatchBody() throws {
        let lists = try RealListPairs.load()
        let scratch = ScratchDirectory("dcz-cli")
        for pair in lists.pairs.sorted(by: { $0.new.count > $1.new.count }).prefix(3) {
            let old = try scratch.write("\(pair.id).old", pair.old)
            let patchPath = try scratch.write("\(pair.id).dcz", try PatchEncoder().encode(from: pair.old, to: pair.new))
            let out = scratch.path + "/\(pair.id).out"
            let body = try ChildRun.shell("tail -c +41 '\(patchPath)' | zstd -d -q -D '\(old)' --long=31 -o '\(out)'")
            #expect(body.status == 0, "\(body.stderr)")
            #expect(
                sameBytes(FileManager.default.contents(atPath: out), pair.new), "\(pair.id): zstd -d gave other bytes")

            let whole = try ChildRun.shell("zstd -d -q -c -D '\(old)' < '\(patchPath)'")
            #expect(
                whole.status == 0 && whole.stdout.elementsEqual(pair.new),
                "\(pair.id): zstd -d on the dcz body failed: \(whole.stderr)")

            let withoutDictionary = try ChildRun.shell("tail -c +41 '\(patchPath)' | zstd -d -q -c > /dev/null")
            #expect(withoutDictionary.status != 0, "\(pair.id): the frame decodes without the old version")

            let sum = try ChildRun.run("/usr/bin/sha256sum", [old])
            let header = try DCZHeader.parse(try Data(contentsOf: URL(fileURLWithPath: patchPath)))
            #expect(
                sum.stdoutText.split(separator: " ").first.map(String.init) == SHA256Digest.hex(header.dictionarySHA256)
            )
        }
    }

    /// A frame the zstd CLI made against the old list, behind our header, decodes through our decoder:
    /// what we accept is the format, not only our own encoder's output.
    @Test func aFrameFromTheZstdCLIDecodes() throws {
        let pair = try #require(try RealListPairs.load().pairs.first)
        let scratch = ScratchDirectory("dcz-cli-frame")
        let old = try scratch.write("old", pair.old)
        let new = try scratch.write("new", pair.new)
        let frame = try ChildRun.shell("zstd -q -c -19 -D '\(old)' '\(new)' > '\(scratch.path)/frame'")
        #expect(frame.status == 0, "\(frame.stderr)")
        let patch =
            Data(DCZHeader(dictionary: pair.old).bytes)
            + (try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/frame")))
        #expect(sameBytes(try PatchDecoder().apply(patch, to: Data(pair.old), expectedBytes: pair.new.count), pair.new))
    }

    /// When the new version is larger than RFC 9842's window for the old one (max(8 MiB, 1.25 × old)),
    /// the encoder keeps the window within the bound, and the device decodes it.
    @Test func theWindowStaysWithinTheBoundADeviceAccepts() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func noise(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 56)
            }
        }
        let old = noise(1 << 20)
        for new in [old + noise(2 << 20), old + noise(9 << 20)] {
            let patch = try PatchEncoder().encode(from: old, to: new)
            let info = try Data(patch.dropFirst(DCZHeader.length)).withUnsafeBytes { try ZstdFrameInfo.parse($0) }
            #expect(
                info.windowBytes <= UInt64(PatchLimits.windowLimit(dictionaryBytes: old.count)),
                "window \(info.windowBytes) for a \(new.count)-byte list against a \(old.count)-byte one")
            #expect(sameBytes(try PatchDecoder().apply(Data(patch), to: Data(old), expectedBytes: new.count), new))
        }
    }
}
