import Foundation
import ListFormat

/// The 40-byte header that starts an RFC 9842 `dcz` body: a zstd skippable frame (magic
/// `5E 2A 4D 18`, length 32) holding the SHA-256 of the raw dictionary the zstd frame after it needs.
/// A plain zstd decoder skips it; a dcz decoder reads it to know which dictionary to use.
public struct DCZHeader: Equatable, Sendable {
    /// Bytes before the zstd frame.
    public static let length = 40
    /// Skippable-frame magic 0x184D2A5E and frame length 32, both little-endian.
    public static let prefix: [UInt8] = [0x5E, 0x2A, 0x4D, 0x18, 0x20, 0x00, 0x00, 0x00]

    /// SHA-256 of the dictionary (the old version's identity bytes).
    public var dictionarySHA256: [UInt8]

    public init(dictionarySHA256: [UInt8]) {
        precondition(dictionarySHA256.count == 32, "a SHA-256 digest has 32 bytes")
        self.dictionarySHA256 = dictionarySHA256
    }

    /// The header for a patch against `dictionary`.
    public init(dictionary: some DataProtocol) {
        self.init(dictionarySHA256: SHA256Digest.of(dictionary))
    }

    public var bytes: [UInt8] { Self.prefix + dictionarySHA256 }

    /// Reads the header at the start of `patch`.
    /// - Throws: `.truncated` when fewer than 40 bytes, `.notDCZ` when the first 8 are not the dcz prefix.
    public static func parse(_ patch: some DataProtocol) throws(PatchError) -> DCZHeader {
        let head = Array(patch.prefix(length))
        guard head.count == length else {
            if head.count < prefix.count || head.starts(with: prefix) {
                throw .truncated("the patch has \(head.count) bytes; a dcz header alone has \(length)")
            }
            throw .notDCZ(leadingBytes: Array(head.prefix(8)))
        }
        guard head.starts(with: prefix) else { throw .notDCZ(leadingBytes: Array(head.prefix(8))) }
        return DCZHeader(dictionarySHA256: Array(head[prefix.count...]))
    }
}
