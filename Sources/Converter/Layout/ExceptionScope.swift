/// Which `@@` exceptions a network list must carry.
///
/// `ignore-previous-rules` only cancels earlier rules of its own list, so an exception must be in
/// every list holding a block it can cancel. It can cancel a block only if some URL matches both.
/// An exception anchored to host E (`||E^`) matches only URLs on E and its subdomains; a block
/// anchored to host B only URLs on B and its subdomains. Those sets meet exactly when E == B, E is
/// a subdomain of B, or B is a subdomain of E. So an anchored exception is provably irrelevant to a
/// list whose blocks are all anchored to unrelated hosts; an unanchored exception, or a list with
/// any unanchored block, gets the exception.
struct ExceptionScope: Sendable {
    /// Some block may match a URL on any host.
    private(set) var hasUnanchoredBlock = false
    /// Hash of every block host.
    private var hosts = Set<UInt64>()
    /// Hash of every dot-suffix of every block host (the host itself included).
    private var hostSuffixes = Set<UInt64>()

    init<Hosts: Sequence>(blockHosts: Hosts) where Hosts.Element == String? {
        for host in blockHosts {
            guard let host else {
                hasUnanchoredBlock = true
                continue
            }
            let suffixes = ExceptionScope.suffixHashes(host)
            if let whole = suffixes.first { hosts.insert(whole) }
            hostSuffixes.formUnion(suffixes)
        }
    }

    /// Whether an exception anchored to `host` (nil: unanchored) can cancel a block of the list.
    func mayCancel(exceptionHost host: String?) -> Bool {
        guard let host, !hasUnanchoredBlock else { return true }
        let suffixes = ExceptionScope.suffixHashes(host)
        guard let whole = suffixes.first else { return true }
        // A block on E itself or on a subdomain of E.
        if hostSuffixes.contains(whole) { return true }
        // A block on a parent domain of E.
        return suffixes.dropFirst().contains { hosts.contains($0) }
    }

    /// FNV-1a hashes of `host`, then of each suffix after a dot: `a.b.c` → `a.b.c`, `b.c`, `c`.
    static func suffixHashes(_ host: String) -> [UInt64] {
        let bytes = Array(host.utf8)
        guard !bytes.isEmpty else { return [] }
        var starts = [0]
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: ".") && index + 1 < bytes.count {
            starts.append(index + 1)
        }
        return starts.map { start in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes[start...] { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            return hash
        }
    }
}
