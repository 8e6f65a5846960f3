import CZstdShim
import DictionaryPatch
import Foundation

/// Makes the dcz patch from one version of a list to the next: the 40-byte header naming the old
/// version's SHA-256, then one zstd frame compressed with the old identity bytes as raw prefix
/// dictionary. Fixed parameters and one thread, so every origin with the same libzstd writes the same bytes.
public struct PatchEncoder: Sendable {
    /// What changes the bytes of every patch: change it only with a note in docs/patches.md.
    public struct Parameters: Equatable, Sendable {
        public var level: Int32
        /// Long-distance matching (off in `.standard`: within one list's window the regular match finder finds the old rules).
        public var longDistanceMatching: Bool

        public init(level: Int32, longDistanceMatching: Bool) {
            self.level = level
            self.longDistanceMatching = longDistanceMatching
        }

        /// Level 9: the week-behind device's share under 5% with a publish's patches from 7 versions
        /// in about 1 s (levels 3 and 6 miss the 5%; 19 takes seconds per list). docs/patches.md has the figures.
        public static let standard = Parameters(level: 9, longDistanceMatching: false)
    }

    public var parameters: Parameters

    public init(parameters: Parameters = .standard) {
        self.parameters = parameters
    }

    /// The dcz bytes that turn `old` into `new`.
    ///
    /// The frame carries its content size (so a device refuses a wrong size before decoding) and a
    /// checksum (4 bytes; corruption shows as corruption, not as a wrong SHA-256), no dictionary ID.
    /// Its window covers `new` when that fits RFC 9842's bound for `old` (max(8 MiB, 1.25 × old));
    /// otherwise it is the largest power of two within the bound, still decodable, just larger.
    public func encode(from old: [UInt8], to new: [UInt8]) throws(PatchEncodingError) -> [UInt8] {
        var frame: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message: UnsafePointer<CChar>?
        let windowLog = Self.windowLog(oldBytes: old.count, newBytes: new.count)
        let status = old.withUnsafeBufferPointer { prefix in
            new.withUnsafeBufferPointer { input in
                shim_zstd_compress_with_prefix(
                    prefix.baseAddress, prefix.count, input.baseAddress, input.count,
                    parameters.level, Int32(windowLog), 1, 1,
                    parameters.longDistanceMatching ? 1 : 0, &frame, &length, &message)
            }
        }
        guard status == 0, let frame else {
            throw PatchEncodingError(reason: message.map { String(cString: $0) } ?? "unknown libzstd error")
        }
        defer { free(frame) }
        var patch = DCZHeader(dictionary: old).bytes
        patch.reserveCapacity(DCZHeader.length + length)
        patch.append(contentsOf: UnsafeBufferPointer(start: frame, count: length))
        return patch
    }

    /// log2 of the window: enough for `newBytes`, never above RFC 9842's bound for `oldBytes`.
    static func windowLog(oldBytes: Int, newBytes: Int) -> Int {
        let limit = PatchLimits.windowLimit(dictionaryBytes: oldBytes)
        var ceiling = 10
        while (1 << (ceiling + 1)) <= limit { ceiling += 1 }
        var needed = 10
        while (1 << needed) < newBytes { needed += 1 }
        return min(needed, ceiling)
    }
}

/// libzstd refused to compress (out of memory, or a parameter this libzstd does not know).
public struct PatchEncodingError: Error, Equatable, Sendable, CustomStringConvertible {
    public var reason: String
    public var description: String { "dcz patch encoding failed in libzstd: \(reason)" }
}
