/// A set of hosts (or page domains) indexed so that one lookup tells whether another host is the
/// same as, a subdomain of, or a parent domain of any of them: exactly when the URLs (or pages)
/// the two stand for can overlap, since `||h^` and `*h` both cover h and all its subdomains.
struct HostRelationIndex: Sendable {
    /// Hash of every inserted host.
    private var hosts = HashSet64()
    /// Hash of every dot-suffix of every inserted host (the host itself included).
    private var suffixes = HashSet64()

    var isEmpty: Bool { hosts.isEmpty }

    mutating func insert(_ host: String) {
        var whole: UInt64?
        HostRelationIndex.forEachSuffixHash(host) { hash in
            suffixes.insert(hash)
            whole = hash
        }
        if let whole { hosts.insert(whole) }
    }

    /// Whether `host` equals an inserted host, is a subdomain of one, or is a parent domain of one.
    func relates(to host: String) -> Bool {
        var previous: UInt64?
        var parentInserted = false
        HostRelationIndex.forEachSuffixHash(host) { hash in
            // Every suffix but the last (the whole host) is a parent domain of `host`.
            if let previous, !parentInserted, hosts.contains(previous) { parentInserted = true }
            previous = hash
        }
        guard let whole = previous else { return true }
        return parentInserted || suffixes.contains(whole)  // an inserted host is above, at or below `host`
    }

    mutating func reserveCapacity(_ hostCount: Int) {
        hosts.reserveCapacity(hostCount)
        suffixes.reserveCapacity(hostCount * 2)
    }

    /// Calls `body` with a hash of each dot-suffix of `host`, shortest first, the whole host last:
    /// `a.b.c` → `c`, `b.c`, `a.b.c`. The hash is FNV-1a over the bytes read backwards, so one
    /// backward pass yields every suffix's hash without building the substrings.
    static func forEachSuffixHash(_ host: String, _ body: (UInt64) -> Void) {
        var host = host
        host.withUTF8 { bytes in
            var hash = FNV1a.offsetBasis
            var index = bytes.count - 1
            while index >= 0 {
                hash = FNV1a.step(hash, bytes[index])
                if index == 0 || bytes[index - 1] == UInt8(ascii: ".") { body(hash) }
                index -= 1
            }
        }
    }
}
