/// Which public suffixes reach into a name: where `name.L` (or `….name.L`) is itself a public
/// suffix or holds one, so a host `www.name.L` is not registrable as `name.L`. An index over a
/// `PublicSuffixList`'s rules, built only by the conversions that name entity domains, so loading
/// the list costs its other users nothing more.
public struct SuffixReach: Sendable {
    private let list: PublicSuffixList
    /// Rules of two labels or more by their next-to-last label (`*` for wildcards), as last labels.
    private let lastLabelsByNeighbour: [String: Set<String>]

    public init(_ list: PublicSuffixList) {
        var lastLabelsByNeighbour: [String: Set<String>] = [:]
        for rule in list.rules {
            // Bytes: the rules are lowercase ASCII, and this walks all of them once per conversion.
            let bytes = rule.utf8
            guard let lastDot = bytes.lastIndex(of: UInt8(ascii: ".")) else { continue }
            let head = bytes[..<lastDot]
            let neighbourStart = head.lastIndex(of: UInt8(ascii: ".")).map { bytes.index(after: $0) } ?? head.startIndex
            let last = String(decoding: bytes[bytes.index(after: lastDot)...], as: UTF8.self)
            lastLabelsByNeighbour[String(decoding: head[neighbourStart...], as: UTF8.self), default: []].insert(last)
        }
        self.list = list
        self.lastLabelsByNeighbour = lastLabelsByNeighbour
    }

    /// Whether some host `….name.suffix` (any labels before `name`) has a public suffix longer than
    /// `suffix`: a rule reaches into `name` (`*.ck` for `amazon.ck`, `github.io` for `github.io`).
    /// An exception below the name also counts, so the answer errs towards yes: an ABP entity
    /// domain `name.*` encoded as `name.suffix` must leave such hosts out.
    public func reaches(into name: String, below suffix: String) -> Bool {
        var tail = suffix
        for label in name.split(separator: ".").reversed() {
            if list.hasWildcard(under: tail) { return true }
            tail = label + "." + tail
            if list.isRule(tail) { return true }
        }
        return list.namesSuffix(below: tail)
    }

    /// Whether the list has the wildcard rule `*.label`: every name under `label` is a public suffix.
    public func isWildcard(_ label: String) -> Bool { list.hasWildcard(under: label) }

    /// The labels `L` for which `reaches(into: name, below: L)`: the top-level labels under which
    /// `name.L` is, or holds, a public suffix.
    public func lastLabels(reachingInto name: String) -> Set<String> {
        guard let last = name.split(separator: ".").last else { return [] }
        let candidates = (lastLabelsByNeighbour["*"] ?? []).union(lastLabelsByNeighbour[String(last)] ?? [])
        return candidates.filter { reaches(into: name, below: $0) }
    }
}
