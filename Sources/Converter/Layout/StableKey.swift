/// A rule's identity in the layout state: 64-bit FNV-1a of its source id and ABP key.
/// Hashing keeps the state small (16 hex digits a rule instead of the line text) and free of
/// escaping; a collision only means two rules share a list, never a wrong rule.
struct StableKey: Hashable, Comparable, Sendable {
    var value: UInt64

    init(value: UInt64) {
        self.value = value
    }

    init(sourceID: String, key: String) {
        var hash = StableKey.fnv1a(sourceID, 0xcbf2_9ce4_8422_2325)
        hash = (hash ^ 0) &* 0x0000_0100_0000_01b3
        value = StableKey.fnv1a(key, hash)
    }

    /// FNV-1a over the string's UTF-8 bytes, read from its contiguous storage (native strings are).
    private static func fnv1a(_ text: String, _ start: UInt64) -> UInt64 {
        var text = text
        return text.withUTF8 { bytes in
            var hash = start
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            return hash
        }
    }

    /// Parses the 16-digit lowercase hex form written by `hex`.
    init?(hex: String) {
        guard hex.utf8.count == 16, let parsed = UInt64(hex, radix: 16) else { return nil }
        value = parsed
    }

    var hex: String { String(decoding: hexBytes(), as: UTF8.self) }

    /// Appends the 16 lowercase hex digits of `hex` (the layout state writes one per rule).
    func appendHex(to out: inout [UInt8]) {
        for shift in stride(from: 60, through: 0, by: -4) {
            let digit = UInt8(truncatingIfNeeded: (value >> UInt64(shift)) & 0xf)
            out.append(digit < 10 ? 0x30 + digit : 0x57 + digit)  // 0-9, a-f
        }
    }

    private func hexBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16)
        appendHex(to: &out)
        return out
    }

    static func < (lhs: StableKey, rhs: StableKey) -> Bool { lhs.value < rhs.value }
}
