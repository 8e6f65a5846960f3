/// A rule's identity in the layout state: 64-bit FNV-1a of its source id and ABP key.
/// Hashing keeps the state small (16 hex digits a rule instead of the line text) and free of
/// escaping; a collision only means two rules share a list, never a wrong rule.
struct StableKey: Hashable, Comparable, Sendable {
    var value: UInt64

    init(value: UInt64) {
        self.value = value
    }

    init(sourceID: String, key: String) {
        // The source id, a 0 byte, then the key.
        value = FNV1a.hash(key, from: FNV1a.step(FNV1a.hash(sourceID), 0))
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
