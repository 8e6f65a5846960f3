import DictionaryPatch
import DictionaryPatchOrigin
import Foundation
import ListFormat
import TestSupport
import Testing

/// Each way a patch can be wrong gives its own typed error, before or without large allocations.
@Suite struct FailureTests {
    /// A mid-size real pair (network-hosts-00 in 10-19 → 20) and its patch.
    static func sample() throws -> (pair: RealListPairs.Pair, patch: Data) {
        let pairs = try RealListPairs.load().pairs
        let pair = try #require(pairs.first { $0.id.hasPrefix("network-hosts") } ?? pairs.first)
        return (pair, Data(try PatchEncoder().encode(from: pair.old, to: pair.new)))
    }

    static func error(_ body: () throws -> Data) -> PatchError? {
        do {
            _ = try body()
            return nil
        } catch let error as PatchError {
            return error
        } catch {
            Issue.record("not a PatchError: \(error)")
            return nil
        }
    }

    @Test func aPatchAgainstAnotherVersionIsAWrongBase() throws {
        let (pair, patch) = try Self.sample()
        let lists = try RealListPairs.load()
        let other = try #require(lists.day19.first { $0.key != pair.id }?.value)
        let error = Self.error { try PatchDecoder().apply(patch, to: Data(other), expectedBytes: pair.new.count) }
        #expect(
            error
                == .wrongBase(
                    patchDictionary: SHA256Digest.hex(SHA256Digest.of(pair.old)),
                    held: SHA256Digest.hex(SHA256Digest.of(other))))
        // The held version itself, one byte changed, is another version too.
        var damaged = pair.old
        damaged[damaged.count / 2] ^= 0x01
        let nearMiss = Self.error { try PatchDecoder().apply(patch, to: Data(damaged), expectedBytes: pair.new.count) }
        guard case .wrongBase = nearMiss else {
            Issue.record("got \(String(describing: nearMiss))")
            return
        }
    }

    @Test func aCorruptPatchIsCorrupt() throws {
        let (pair, patch) = try Self.sample()
        var checksum = patch
        checksum[checksum.count - 1] ^= 0xFF
        let badChecksum = Self.error {
            try PatchDecoder().apply(checksum, to: Data(pair.old), expectedBytes: pair.new.count)
        }
        guard case .corrupt(let detail) = badChecksum else {
            Issue.record("got \(String(describing: badChecksum))")
            return
        }
        #expect(detail.lowercased().contains("checksum"), "\(detail)")

        var magic = patch
        magic[DCZHeader.length] ^= 0xFF
        let badMagic = Self.error { try PatchDecoder().apply(magic, to: Data(pair.old), expectedBytes: pair.new.count) }
        guard case .corrupt = badMagic else {
            Issue.record("got \(String(describing: badMagic))")
            return
        }

        let gzip = try ChildRun.shell("printf '[]' | gzip -c | base64 -w0")
        let notDCZ = Data(base64Encoded: gzip.stdoutText)! + Data(repeating: 0, count: 64)
        let error = Self.error { try PatchDecoder().apply(notDCZ, to: Data(pair.old), expectedBytes: pair.new.count) }
        guard case .notDCZ(let leading) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(leading.prefix(2) == [0x1F, 0x8B])
    }

    @Test func aTruncatedPatchIsTruncated() throws {
        let (pair, patch) = try Self.sample()
        for length in [0, 5, 8, 39, 40, 43, 46, patch.count / 2, patch.count - 1] {
            let error = Self.error {
                try PatchDecoder().apply(patch.prefix(length), to: Data(pair.old), expectedBytes: pair.new.count)
            }
            guard case .truncated = error else {
                Issue.record("cut at \(length) of \(patch.count): got \(String(describing: error))")
                continue
            }
        }
    }

    /// A small frame that declares far more than the manifest's `bytes` is refused from its header.
    @Test func aFrameDeclaringMoreThanTheExpectedBytesIsABomb() throws {
        let (pair, _) = try Self.sample()
        let scratch = ScratchDirectory("dcz-bomb-declared")
        let old = try scratch.write("old", pair.old)
        let made = try ChildRun.shell(
            "truncate -s 256M '\(scratch.path)/zeros' && zstd -q -1 -D '\(old)' '\(scratch.path)/zeros' -o '\(scratch.path)/frame'"
        )
        #expect(made.status == 0, "\(made.stderr)")
        let frame = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/frame"))
        #expect(frame.count < 1 << 20)
        let patch = Data(DCZHeader(dictionary: pair.old).bytes) + frame
        let spy = RecordingDecompressor()
        let error = Self.error {
            try PatchDecoder(decompressor: spy).apply(patch, to: Data(pair.old), expectedBytes: pair.new.count)
        }
        #expect(error == .tooLarge(limit: pair.new.count, declared: 256 << 20))
        #expect(spy.calls == 0, "the frame reached the decoder")
    }

    /// A frame with no declared size that decodes to far more than `bytes` stops at `bytes` + 1.
    /// Measured in a child process (`dcz decode` under /usr/bin/time): its peak memory stays far
    /// below what decoding the whole bomb would take.
    @Test func aFrameDecodingToMoreThanTheExpectedBytesStopsAtTheBound() throws {
        let (pair, _) = try Self.sample()
        let scratch = ScratchDirectory("dcz-bomb-stream")
        let old = try scratch.write("old", pair.old)
        // 100 KB of the old list, 3,000 times over: 300 MB out of a frame of a few hundred KB.
        let made = try ChildRun.shell(
            """
            cd '\(scratch.path)' && head -c 100000 old > unit && for i in $(seq 100); do cat unit; done > chunk \
              && for i in $(seq 30); do cat chunk; done | zstd -q -1 -c -D old > frame
            """)
        #expect(made.status == 0, "\(made.stderr)")
        let frame = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/frame"))
        let bombBytes = 300_000_000
        #expect(frame.count * 100 < bombBytes, "the frame is not a bomb: \(frame.count) bytes for \(bombBytes)")
        let info = try frame.withUnsafeBytes { try ZstdFrameInfo.parse($0) }
        #expect(info.contentBytes == nil)
        let patch = Data(DCZHeader(dictionary: pair.old).bytes) + frame
        let error = Self.error { try PatchDecoder().apply(patch, to: Data(pair.old), expectedBytes: pair.new.count) }
        #expect(error == .tooLarge(limit: pair.new.count, declared: nil))

        let patchPath = try scratch.write("bomb.dcz", patch)
        let run = try ChildRun.run(
            "/usr/bin/time",
            [
                "-f", "maxrss-kb=%M", try DCZBinary.path(), "decode", old, patchPath,
                String(pair.new.count), scratch.path + "/out",
            ])
        #expect(run.status == 1)
        #expect(run.stderr.contains("decompression bomb"), "\(run.stderr)")
        let peak = try #require(
            run.stderr.split(separator: "\n").last { $0.hasPrefix("maxrss-kb=") }.flatMap { Int($0.dropFirst(10)) })
        #expect(peak * 1024 < bombBytes / 4, "peak RSS \(peak) KiB while refusing a \(bombBytes)-byte bomb")
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/out"))
    }

    /// A frame whose window is over RFC 9842's bound is refused from its header, and libzstd (through
    /// the shim) refuses it on its own too; with a bound that allows it, the same frame decodes.
    @Test func aFrameWithAWindowOverTheBoundIsRefused() throws {
        let (pair, _) = try Self.sample()
        let scratch = ScratchDirectory("dcz-window")
        let old = try scratch.write("old", pair.old)
        let new = try scratch.write("new", pair.new)
        let made = try ChildRun.shell("zstd -q -3 -c -D '\(old)' --zstd=wlog=25 < '\(new)' > '\(scratch.path)/frame'")
        #expect(made.status == 0, "\(made.stderr)")
        let frame = try Data(contentsOf: URL(fileURLWithPath: scratch.path + "/frame"))
        let info = try frame.withUnsafeBytes { try ZstdFrameInfo.parse($0) }
        #expect(info.windowBytes == 32 << 20)

        let patch = Data(DCZHeader(dictionary: pair.old).bytes) + frame
        let spy = RecordingDecompressor()
        let error = Self.error {
            try PatchDecoder(decompressor: spy).apply(patch, to: Data(pair.old), expectedBytes: pair.new.count)
        }
        #expect(error == .windowTooLarge(window: 32 << 20, limit: 8 << 20))
        #expect(spy.calls == 0, "the frame reached the decoder")

        let limits = PatchLimits.rfc9842(dictionaryBytes: pair.old.count, outputBytes: pair.new.count)
        #expect(throws: DecompressionFailure.windowTooLarge) {
            try LibzstdDecompressor().decompress(frame: frame, dictionary: Data(pair.old), limits: limits)
        }
        let roomy = PatchLimits(maxWindowBytes: 32 << 20, outputBytes: pair.new.count)
        #expect(
            sameBytes(
                try LibzstdDecompressor().decompress(frame: frame, dictionary: Data(pair.old), limits: roomy), pair.new)
        )
    }
}

/// libzstd behind a call counter: what is refused from the headers never reaches it.
final class RecordingDecompressor: RawDictionaryDecompressor, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var calls: Int { lock.withLock { count } }

    func decompress(frame: Data, dictionary: Data, limits: PatchLimits) throws(DecompressionFailure) -> Data {
        lock.withLock { count += 1 }
        return try LibzstdDecompressor().decompress(frame: frame, dictionary: dictionary, limits: limits)
    }
}
