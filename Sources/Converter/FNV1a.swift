/// 64-bit FNV-1a: the converter's one byte hash, for keys that must be the same in every process
/// and on every machine (Swift's `Hasher` is seeded per process): layout keys, line lookups, host
/// suffixes.
enum FNV1a {
    static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325

    /// One more byte into `hash`.
    @inline(__always) static func step(_ hash: UInt64, _ byte: UInt8) -> UInt64 {
        (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }

    /// The hash of `bytes`, continuing from `start`.
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>, from start: UInt64 = offsetBasis) -> UInt64 {
        var hash = start
        for byte in bytes { hash = step(hash, byte) }
        return hash
    }

    /// The hash of a string's UTF-8 bytes, read from its contiguous storage (native strings are).
    static func hash(_ text: String, from start: UInt64 = offsetBasis) -> UInt64 {
        var text = text
        return text.withUTF8 { hash($0, from: start) }
    }
}
