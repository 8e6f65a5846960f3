/// A set of 64-bit hashes with open addressing: for values that are already well-mixed hashes
/// (FNV-1a of host names), so no second hash function runs on every insert and lookup, as
/// `Set<UInt64>` would with its seeded SipHash.
struct HashSet64: Sendable {
    /// Slots hold `value + 1`, so 0 marks an empty slot (a value of `UInt64.max` is stored in `hasMax`).
    private var slots: [UInt64] = []
    private var hasMax = false
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func reserveCapacity(_ capacity: Int) {
        if capacity * 2 > slots.count { rehash(to: Self.tableSize(for: capacity)) }
    }

    mutating func insert(_ value: UInt64) {
        guard value != .max else {
            if !hasMax { hasMax = true; count += 1 }
            return
        }
        if (count + 1) * 2 > slots.count { rehash(to: Self.tableSize(for: count + 1)) }
        let stored = value &+ 1
        let inserted = slots.withUnsafeMutableBufferPointer { table -> Bool in
            let mask = table.count - 1
            var index = Int(truncatingIfNeeded: Self.mix(value)) & mask
            while true {
                let slot = table[index]
                if slot == stored { return false }
                if slot == 0 {
                    table[index] = stored
                    return true
                }
                index = (index + 1) & mask
            }
        }
        if inserted { count += 1 }
    }

    func contains(_ value: UInt64) -> Bool {
        guard value != .max else { return hasMax }
        guard !slots.isEmpty else { return false }
        let stored = value &+ 1
        return slots.withUnsafeBufferPointer { table in
            let mask = table.count - 1
            var index = Int(truncatingIfNeeded: Self.mix(value)) & mask
            while true {
                let slot = table[index]
                if slot == stored { return true }
                if slot == 0 { return false }
                index = (index + 1) & mask
            }
        }
    }

    /// FNV-1a's low bits depend mostly on the last bytes; fold the high bits in before masking.
    @inline(__always) private static func mix(_ value: UInt64) -> UInt64 {
        value ^ (value >> 29) ^ (value >> 47)
    }

    /// A power of two at least twice `capacity` (load factor at most one half), at least 16.
    private static func tableSize(for capacity: Int) -> Int {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        return size
    }

    private mutating func rehash(to size: Int) {
        let old = slots
        slots = [UInt64](repeating: 0, count: size)
        let mask = size - 1
        slots.withUnsafeMutableBufferPointer { table in
            for stored in old where stored != 0 {
                var index = Int(truncatingIfNeeded: Self.mix(stored &- 1)) & mask
                while table[index] != 0 { index = (index + 1) & mask }
                table[index] = stored
            }
        }
    }
}
