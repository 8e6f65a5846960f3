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

    /// The key's bytes, in order.
    var bytes: Bytes { Bytes(order: self) }

    /// The first 16 bytes as two big-endian words, missing bytes as zeros: most comparisons end here.
    var prefix: (high: UInt64, low: UInt64) {
        var high: UInt64 = 0, low: UInt64 = 0
        var count = 0
        for byte in bytes {
            if count < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
            count += 1
            if count == 16 { break }
        }
        if count < 8 { high <<= UInt64(8 * (8 - count)) }
        if count < 16 { low = count <= 8 ? 0 : low << UInt64(8 * (16 - count)) }
        return (high, low)
    }

    /// Byte-wise order of two keys: negative, zero or positive.
    static func compare(_ lhs: FreshOrder, _ rhs: FreshOrder) -> Int {
        var left = lhs.bytes.makeIterator(), right = rhs.bytes.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (a?, b?): if a != b { return a < b ? -1 : 1 }
            }
        }
    }

    /// The bytes of a key, produced one at a time from its host or sites.
    struct Bytes: Sequence {
        var order: FreshOrder

        func makeIterator() -> Iterator { Iterator(order: order) }

        struct Iterator: IteratorProtocol {
            private let order: FreshOrder
            /// 0: volatility, 1: churn class, 2: the tail.
            private var phase = 0
            // Reversed host: the label being read is `utf8[label..<labelEnd]`, read from `position`.
            private var utf8: String.UTF8View?
            private var label: String.Index?
            private var labelEnd: String.Index?
            private var position: String.Index?
            // Sites: which site, and where in it.
            private var site = 0

            init(order: FreshOrder) {
                self.order = order
            }

            mutating func next() -> UInt8? {
                switch phase {
                case 0:
                    phase = 1
                    return order.volatility
                case 1:
                    phase = 2
                    switch order.tail {
                    case .none: break
                    case .reversedHost(let host): startLabel(in: host.utf8, endingAt: host.utf8.endIndex)
                    case .sites(let sites): if let first = sites.first { utf8 = first.utf8; position = first.utf8.startIndex }
                    }
                    return order.churn.rawValue
                default:
                    switch order.tail {
                    case .none: return nil
                    case .reversedHost: return nextHostByte()
                    case .sites(let sites): return nextSiteByte(sites)
                    }
                }
            }

            /// Finds the label that ends at `end`: after the last dot before it, or the host's start.
            private mutating func startLabel(in view: String.UTF8View, endingAt end: String.Index) {
                var start = end
                while start > view.startIndex {
                    let before = view.index(before: start)
                    if view[before] == UInt8(ascii: ".") { break }
                    start = before
                }
                utf8 = view
                label = start
                labelEnd = end
                position = start
            }

            private mutating func nextHostByte() -> UInt8? {
                guard let view = utf8, let start = label, let end = labelEnd, let current = position else { return nil }
                if current < end {
                    position = view.index(after: current)
                    return view[current]
                }
                // The label is done: a dot, then the label before it (if the host goes on to the left).
                guard start > view.startIndex else {
                    utf8 = nil
                    return nil
                }
                startLabel(in: view, endingAt: view.index(before: start))
                return UInt8(ascii: ".")
            }

            private mutating func nextSiteByte(_ sites: [String]) -> UInt8? {
                guard let view = utf8, let current = position else { return nil }
                if current < view.endIndex {
                    position = view.index(after: current)
                    return view[current]
                }
                site += 1
                guard site < sites.count else {
                    utf8 = nil
                    return nil
                }
                utf8 = sites[site].utf8
                position = sites[site].utf8.startIndex
                return UInt8(ascii: ",")
            }
        }
    }
}
