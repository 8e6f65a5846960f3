/// A fresh layout's sort key: volatility, churn class, then a host block's host with its labels
/// last first (`ads.example.com` → `com.example.ads`, so a site's hosts sort together) or a site
/// selector's sites joined by commas. Members sort by these bytes, which are read from the host
/// or sites on demand: 160,000 members then cost no allocation for their keys.
struct FreshOrder: Sendable, Equatable {
    enum Tail: Sendable, Equatable {
        case none
        case reversedHost(String)
        case sites([String])
    }

    var volatility: UInt8
    var churn: ChurnClass
    var tail: Tail = .none

    var isVolatile: Bool { volatility == Volatility.volatile }

    /// The key's bytes, in order (allocates: for ties past the prefix, and tests).
    var bytes: [UInt8] {
        var out: [UInt8] = []
        forEachByte {
            out.append($0)
            return true
        }
        return out
    }

    /// The first 32 bytes as four big-endian words, missing bytes as zeros: comparing these settles
    /// all but a few comparisons (a site's hosts often share 16 bytes, as in `net.cloudfront.d…`).
    var prefix: Prefix {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var count = 0
        forEachByte { byte in
            let shift = UInt64(56 - 8 * (count & 7))
            switch count >> 3 {
            case 0: words.0 |= UInt64(byte) << shift
            case 1: words.1 |= UInt64(byte) << shift
            case 2: words.2 |= UInt64(byte) << shift
            default: words.3 |= UInt64(byte) << shift
            }
            count += 1
            return count < 32
        }
        return Prefix(words: words)
    }

    /// Four big-endian words of a key's first bytes, ordered as those bytes are.
    struct Prefix: Sendable {
        var words: (UInt64, UInt64, UInt64, UInt64)

        /// Negative, zero (the prefixes are equal: look at the whole keys) or positive.
        static func compare(_ lhs: Prefix, _ rhs: Prefix) -> Int {
            if lhs.words.0 != rhs.words.0 { return lhs.words.0 < rhs.words.0 ? -1 : 1 }
            if lhs.words.1 != rhs.words.1 { return lhs.words.1 < rhs.words.1 ? -1 : 1 }
            if lhs.words.2 != rhs.words.2 { return lhs.words.2 < rhs.words.2 ? -1 : 1 }
            if lhs.words.3 != rhs.words.3 { return lhs.words.3 < rhs.words.3 ? -1 : 1 }
            return 0
        }
    }

    /// Calls `body` with each byte in order until it returns false, reading the strings' UTF-8 in place.
    func forEachByte(_ body: (UInt8) -> Bool) {
        guard body(volatility), body(churn.rawValue) else { return }
        switch tail {
        case .none:
            return
        case .reversedHost(var host):
            host.withUTF8 { bytes in
                var end = bytes.count
                var index = bytes.count
                while index > 0 {
                    index -= 1
                    guard bytes[index] == UInt8(ascii: ".") else { continue }
                    for offset in (index + 1)..<end { guard body(bytes[offset]) else { return } }
                    guard body(UInt8(ascii: ".")) else { return }
                    end = index
                }
                for offset in 0..<end { guard body(bytes[offset]) else { return } }
            }
        case .sites(let sites):
            for (position, site) in sites.enumerated() {
                if position > 0, !body(UInt8(ascii: ",")) { return }
                var site = site
                let more = site.withUTF8 { bytes -> Bool in
                    for byte in bytes { guard body(byte) else { return false } }
                    return true
                }
                guard more else { return }
            }
        }
    }

    /// Byte-wise order of two whole keys: negative, zero or positive. Sorting compares `prefix`
    /// first and comes here only when the prefixes are equal.
    static func compare(_ lhs: FreshOrder, _ rhs: FreshOrder) -> Int {
        let left = lhs.bytes
        let right = rhs.bytes
        return left == right ? 0 : (left.lexicographicallyPrecedes(right) ? -1 : 1)
    }
}
