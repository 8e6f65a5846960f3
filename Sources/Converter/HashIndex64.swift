/// Open-addressing tables for keys that are already well-mixed 64-bit hashes (FNV-1a of host
/// names or filter lines), so no second hash function runs on every insert and lookup, as
/// `Set<UInt64>` or `Dictionary<UInt64, _>` would with their seeded SipHash.
///
/// The shared part: slots hold `key + 1`, so 0 marks an empty slot (the key `UInt64.max` is kept
/// apart by the tables that use this); linear probing; load factor at most one half.
struct HashSlots64: Sendable {
    private(set) var keys: [UInt64] = []
    private(set) var count = 0

    /// The slot holding `key`, or the empty slot where it would go. The table must not be empty.
    func find(_ key: UInt64) -> Int {
        let stored = key &+ 1
        return keys.withUnsafeBufferPointer { table in
            let mask = table.count - 1
            var index = Int(truncatingIfNeeded: Self.mix(key)) & mask
            while table[index] != 0, table[index] != stored { index = (index + 1) & mask }
            return index
        }
    }

    func contains(_ key: UInt64) -> Bool { !keys.isEmpty && keys[find(key)] != 0 }

    /// Makes room for one more key; returns the old slot → new slot moves when the table grew.
    mutating func growIfNeeded(_ moved: (_ from: Int, _ to: Int) -> Void = { _, _ in }) {
        if (count + 1) * 2 > keys.count { rehash(to: Self.tableSize(for: count + 1), moved) }
    }

    mutating func reserveCapacity(_ capacity: Int, _ moved: (_ from: Int, _ to: Int) -> Void = { _, _ in }) {
        if capacity * 2 > keys.count { rehash(to: Self.tableSize(for: capacity), moved) }
    }

    /// Puts `key` into `slot`, which `find` returned empty.
    mutating func fill(_ slot: Int, with key: UInt64) {
        keys[slot] = key &+ 1
        count += 1
    }

    /// FNV-1a's low bits depend mostly on the last bytes; fold the high bits in before masking.
    @inline(__always) private static func mix(_ value: UInt64) -> UInt64 {
        value ^ (value >> 29) ^ (value >> 47)
    }

    /// A power of two at least twice `capacity`, at least 16.
    private static func tableSize(for capacity: Int) -> Int {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        return size
    }

    private mutating func rehash(to size: Int, _ moved: (_ from: Int, _ to: Int) -> Void) {
        let old = keys
        keys = [UInt64](repeating: 0, count: size)
        for (slot, stored) in old.enumerated() where stored != 0 {
            let target = find(stored &- 1)
            keys[target] = stored
            moved(slot, target)
        }
    }
}

/// A set of 64-bit hashes.
struct HashSet64: Sendable {
    private var slots = HashSlots64()
    private var hasMax = false

    var count: Int { slots.count + (hasMax ? 1 : 0) }
    var isEmpty: Bool { count == 0 }

    mutating func reserveCapacity(_ capacity: Int) { slots.reserveCapacity(capacity) }

    mutating func insert(_ value: UInt64) {
        guard value != .max else {
            hasMax = true
            return
        }
        slots.growIfNeeded()
        let slot = slots.find(value)
        if slots.keys[slot] == 0 { slots.fill(slot, with: value) }
    }

    func contains(_ value: UInt64) -> Bool { value == .max ? hasMax : slots.contains(value) }
}

/// A map from 64-bit hashes to small integers (line positions): 12 bytes a slot.
struct HashIndex64: Sendable {
    private var slots = HashSlots64()
    private var values: [Int32] = []
    private var maxValue: Int32?

    var count: Int { slots.count + (maxValue == nil ? 0 : 1) }
    var isEmpty: Bool { count == 0 }

    mutating func reserveCapacity(_ capacity: Int) {
        var moved: [(Int, Int)] = []
        slots.reserveCapacity(capacity) { moved.append(($0, $1)) }
        relocate(moved)
    }

    /// The value stored for `key`, or nil.
    subscript(key: UInt64) -> Int? {
        if key == .max { return maxValue.map(Int.init) }
        guard !slots.keys.isEmpty else { return nil }
        let slot = slots.find(key)
        return slots.keys[slot] == 0 ? nil : Int(values[slot])
    }

    func contains(_ key: UInt64) -> Bool { key == .max ? maxValue != nil : slots.contains(key) }

    /// Stores `value` (which must fit in 32 bits) for `key` unless the key is present; returns the
    /// value now stored and whether it was inserted.
    @discardableResult
    mutating func insert(_ key: UInt64, value: Int) -> (inserted: Bool, stored: Int) {
        let value = Int32(value)
        guard key != .max else {
            if let maxValue { return (false, Int(maxValue)) }
            maxValue = value
            return (true, Int(value))
        }
        var moved: [(Int, Int)] = []
        slots.growIfNeeded { moved.append(($0, $1)) }
        relocate(moved)
        let slot = slots.find(key)
        if slots.keys[slot] != 0 { return (false, Int(values[slot])) }
        slots.fill(slot, with: key)
        values[slot] = value
        return (true, Int(value))
    }

    /// Moves the values after the slots grew.
    private mutating func relocate(_ moved: [(Int, Int)]) {
        guard values.count != slots.keys.count else { return }
        var grown = [Int32](repeating: 0, count: slots.keys.count)
        for (from, to) in moved { grown[to] = values[from] }
        values = grown
    }
}
