/// Which public suffixes reach into a name: where `name.L` (or `….name.L`) is itself a public
/// suffix or holds one, so a host `www.name.L` is not registrable as `name.L`. An index over a
/// `PublicSuffixList`'s rules, built only by the conversions that name entity domains, so loading
/// the list costs its other users nothing more.
public struct SuffixReach: Sendable {
    private let rules: Set<String>
    /// Every shorter label suffix of a rule (`b.c` and `c` of `a.b.c`): what a longer rule ends in.
    private let ruleTails: Set<String>
    /// Rules of two labels or more by their next-to-last label (`*` for wildcards), as last labels.
    private let lastLabelsByNeighbour: [String: Set<String>]

    public init(_ list: PublicSuffixList) {
        var ruleTails = Set<String>()
        var lastLabelsByNeighbour: [String: Set<String>] = [:]
        for rule in list.rules {
            // Dots from the right: the last label, the next-to-last label, then every longer tail.
            guard let lastDot = rule.lastIndex(of: ".") else { continue }
            let last = String(rule[rule.index(after: lastDot)...])
            let head = rule[..<lastDot]
            let neighbourStart = head.lastIndex(of: ".").map { head.index(after: $0) } ?? head.startIndex
            lastLabelsByNeighbour[String(head[neighbourStart...]), default: []].insert(last)
            var dot = head.lastIndex(of: ".")
            while let at = dot {
                ruleTails.insert(String(rule[rule.index(after: at)...]))
                dot = rule[..<at].lastIndex(of: ".")
            }
        }
        rules = list.rules
        self.ruleTails = ruleTails
        self.lastLabelsByNeighbour = lastLabelsByNeighbour
    }

    /// Whether some host `….name.suffix` (any labels before `name`) has a public suffix longer than
    /// `suffix`: a rule reaches into `name` (`*.ck` for `amazon.ck`, `github.io` for `github.io`).
    /// Exception rules are not consulted, so the answer errs towards yes: an ABP entity domain
    /// `name.*` encoded as `name.suffix` must leave such hosts out.
    public func reaches(into name: String, below suffix: String) -> Bool {
        var tail = suffix
        for label in name.split(separator: ".").reversed() {
            if rules.contains("*." + tail) { return true }
            tail = label + "." + tail
            if rules.contains(tail) { return true }
        }
        return ruleTails.contains(tail)
    }

    /// The labels `L` for which `reaches(into: name, below: L)`: the top-level labels under which
    /// `name.L` is, or holds, a public suffix.
    public func lastLabels(reachingInto name: String) -> Set<String> {
        guard let last = name.split(separator: ".").last else { return [] }
        let candidates = (lastLabelsByNeighbour["*"] ?? []).union(lastLabelsByNeighbour[String(last)] ?? [])
        return candidates.filter { reaches(into: name, below: $0) }
    }
}
