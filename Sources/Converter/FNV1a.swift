/// 64-bit FNV-1a: the project's one byte hash, for keys that must be the same in every process
/// and on every machine (Swift's `Hasher` is seeded per process): layout keys, line lookups, host
/// suffixes, and the HTTP server's file-name table.
public enum FNV1a {
    public static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325

    /// One more byte into `hash`.
    @inline(__always) public static func step(_ hash: UInt64, _ byte: UInt8) -> UInt64 {
        (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }

    /// The hash of `bytes`, continuing from `start`.
    public static func hash(_ bytes: UnsafeBufferPointer<UInt8>, from start: UInt64 = offsetBasis) -> UInt64 {
        var hash = start
        for byte in bytes { hash = step(hash, byte) }
        return hash
    }

    /// The hash of a string's UTF-8 bytes, read from its contiguous storage (native strings are).
    public static func hash(_ text: String, from start: UInt64 = offsetBasis) -> UInt64 {
        var text = text
        return text.withUTF8 { hash($0, from: start) }
    }
}
