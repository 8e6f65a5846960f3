/// A rule's identity in the layout state: 64-bit FNV-1a of its source id and ABP key.
/// Hashing keeps the state small (16 hex digits a rule instead of the line text) and free of
/// escaping; a collision only means two rules share a list, never a wrong rule.
struct StableKey: Hashable, Comparable, Sendable {
    var value: UInt64

    init(value: UInt64) {
        self.value = value
    }

    init(sourceID: String, key: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in sourceID.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        hash = (hash ^ 0) &* 0x0000_0100_0000_01b3
        for byte in key.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        value = hash
    }

    /// Parses the 16-digit lowercase hex form written by `hex`.
    init?(hex: String) {
        guard hex.utf8.count == 16, let parsed = UInt64(hex, radix: 16) else { return nil }
        value = parsed
    }

    var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    static func < (lhs: StableKey, rhs: StableKey) -> Bool { lhs.value < rhs.value }
}
