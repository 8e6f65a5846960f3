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
            var whole: UInt64?
            ExceptionScope.forEachSuffixHash(host) { hash in
                hostSuffixes.insert(hash)
                whole = hash
            }
            if let whole { hosts.insert(whole) }
        }
    }

    /// Whether an exception anchored to `host` (nil: unanchored) can cancel a block of the list.
    func mayCancel(exceptionHost host: String?) -> Bool {
        guard let host, !hasUnanchoredBlock else { return true }
        var suffixes: [UInt64] = []
        ExceptionScope.forEachSuffixHash(host) { suffixes.append($0) }
        guard let whole = suffixes.last else { return true }
        // A block on E itself or on a subdomain of E.
        if hostSuffixes.contains(whole) { return true }
        // A block on a parent domain of E.
        return suffixes.dropLast().contains { hosts.contains($0) }
    }

    /// Calls `body` with a hash of each dot-suffix of `host`, shortest first, the whole host last:
    /// `a.b.c` → `c`, `b.c`, `a.b.c`. The hash is FNV-1a over the bytes read backwards, so one
    /// backward pass yields every suffix's hash without building the substrings.
    static func forEachSuffixHash(_ host: String, _ body: (UInt64) -> Void) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var utf8 = host.utf8.makeIterator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        while let byte = utf8.next() { bytes.append(byte) }
        var index = bytes.count - 1
        while index >= 0 {
            hash = (hash ^ UInt64(bytes[index])) &* 0x0000_0100_0000_01b3
            if index == 0 || bytes[index - 1] == UInt8(ascii: ".") { body(hash) }
            index -= 1
        }
    }
}
