/// A map from 64-bit hashes to the position of what they hash, with open addressing: for keys that
/// are already well-mixed hashes (FNV-1a of host names or filter lines), so no second hash function
/// runs on every insert and lookup, as `Dictionary<UInt64, Int>` would with its seeded SipHash.
struct HashIndex64: Sendable {
    /// Slots hold `key + 1`, so 0 marks an empty slot (the key `UInt64.max` lives in `maxValue`).
    private var keys: [UInt64] = []
    private var values: [Int] = []
    private var maxValue: Int?
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func reserveCapacity(_ capacity: Int) {
        if capacity * 2 > keys.count { rehash(to: Self.tableSize(for: capacity)) }
    }

    /// The value stored for `key`, or nil.
    subscript(key: UInt64) -> Int? {
        guard key != .max else { return maxValue }
        guard !keys.isEmpty else { return nil }
        let slot = find(key)
        return keys[slot] == 0 ? nil : values[slot]
    }

    func contains(_ key: UInt64) -> Bool {
        guard key != .max else { return maxValue != nil }
        guard !keys.isEmpty else { return false }
        return keys[find(key)] != 0
    }

    /// Stores `value` for `key` unless the key is present; returns the value now stored and whether it was inserted.
    @discardableResult
    mutating func insert(_ key: UInt64, value: Int) -> (inserted: Bool, stored: Int) {
        guard key != .max else {
            if let maxValue { return (false, maxValue) }
            maxValue = value
            count += 1
            return (true, value)
        }
        if (count + 1) * 2 > keys.count { rehash(to: Self.tableSize(for: count + 1)) }
        let slot = find(key)
        if keys[slot] != 0 { return (false, values[slot]) }
        keys[slot] = key &+ 1
        values[slot] = value
        count += 1
        return (true, value)
    }

    /// Stores `value` for `key`, replacing any value it had.
    mutating func update(_ key: UInt64, value: Int) {
        if !insert(key, value: value).inserted {
            if key == .max { maxValue = value } else { values[find(key)] = value }
        }
    }

    /// The slot holding `key`, or the empty slot where it would go.
    private func find(_ key: UInt64) -> Int {
        let stored = key &+ 1
        return keys.withUnsafeBufferPointer { table in
            let mask = table.count - 1
            var index = Int(truncatingIfNeeded: Self.mix(key)) & mask
            while table[index] != 0, table[index] != stored { index = (index + 1) & mask }
            return index
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
        let oldKeys = keys, oldValues = values
        keys = [UInt64](repeating: 0, count: size)
        values = [Int](repeating: 0, count: size)
        for (slot, stored) in oldKeys.enumerated() where stored != 0 {
            let target = find(stored &- 1)
            keys[target] = stored
            values[target] = oldValues[slot]
        }
    }
}

/// A set of 64-bit hashes (see `HashIndex64`).
struct HashSet64: Sendable {
    private var index = HashIndex64()

    var count: Int { index.count }
    var isEmpty: Bool { index.isEmpty }

    mutating func reserveCapacity(_ capacity: Int) { index.reserveCapacity(capacity) }

    mutating func insert(_ value: UInt64) { index.insert(value, value: 0) }

    func contains(_ value: UInt64) -> Bool { index.contains(value) }
}
