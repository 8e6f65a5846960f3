import PublicSuffix

/// The document url-filters that name the hosts of an ABP entity domain `name.*` (the name under a
/// public suffix, and its subdomains) without naming any other host, so a hiding rule for it can
/// act exactly in those documents, in frames too (`CosmeticRuleBuilder`). WebKit's url-filter
/// grammar has no alternation, so the set is a union of regexes, each a rule of its own:
/// - under a one-label suffix: `^[^:]+://+([^:/]+\.)?amazon\.[^./:]+[/:]`, which also names hosts
///   where `amazon.L` is itself a public suffix or holds one (`*.ck`: `www.amazon.ck` is
///   registrable as a whole). `carveOuts(names:)` names those hosts, for `ignore-previous-rules`
///   rules placed after the one-label rules and before any other;
/// - under two-label suffixes: only the ICANN country-code suffixes whose first label is one of
///   `firstLabels` (`co.uk`, `com.au`), grouped into character classes that name exactly those.
/// Hosts under other suffixes of two labels or more (`amazon.blogspot.com`) are not named: the
/// rule hides less than ABP there, never more.
struct EntityDomainFilters: Sendable {
    /// The registries' commercial labels: where a brand registers under a country-code domain.
    static let commercialLabels: Set<String> = ["co", "com"]

    private let reach: SuffixReach
    private let countryCodeSuffixes: [String]

    init(publicSuffixes: PublicSuffixList, firstLabels: Set<String> = commercialLabels) {
        reach = SuffixReach(publicSuffixes)
        countryCodeSuffixes = publicSuffixes.countryCodeSuffixes(firstLabels: firstLabels)
    }

    /// The url-filter of `name.*` (`name` normalized, without `.*`) under every one-label suffix,
    /// carve-outs aside.
    func anyLabelFilter(name: String) -> [UInt8] {
        Self.filter(name: name, suffix: Array("[^./:]+".utf8))
    }

    /// The url-filters of `name.*` under the listed two-label suffixes, in a fixed order.
    func listedSuffixFilters(name: String) -> [[UInt8]] {
        let exact = countryCodeSuffixes.filter { !reach.reaches(into: name, below: $0) }
        return Self.suffixPatterns(exact).map { Self.filter(name: name, suffix: $0) }
    }

    /// The documents the `anyLabelFilter` of some of `names` matches where ABP's `name.*` does not
    /// hide, in a fixed order: under a wildcard label (`*.ck`), every host of three labels or more
    /// (whose public suffix is then two labels at least, so no one-label filter names it rightly);
    /// under another label `L` that reaches into a name (`github.io`), `name.L` and its subdomains.
    /// Such a carve-out may also cancel another name's filter on a host that the public suffix
    /// rules below `name.L` give to it: that rule then hides less than ABP, never more.
    func carveOuts(names: [String]) -> [[UInt8]] {
        var wildcards = Set<String>()
        var named: [[UInt8]] = []
        for name in names {
            for label in reach.lastLabels(reachingInto: name).sorted() {
                if reach.isWildcard(label) {
                    wildcards.insert(label)
                } else {
                    named.append(Self.filter(name: name, suffix: Array(label.utf8)))
                }
            }
        }
        let belowWildcards = wildcards.sorted().map { label in
            URLFilterBuilder.hostAnchorPrefix + Array(#"[^./:]+\.[^./:]+\."#.utf8) + Array(label.utf8)
                + URLFilterBuilder.hostEndClass
        }
        return belowWildcards + named
    }

    /// `^[^:]+://+([^:/]+\.)?name\.SUFFIX[/:]`, the dots of `name` escaped; `suffix` is already a regex.
    private static func filter(name: String, suffix: [UInt8]) -> [UInt8] {
        var bytes = URLFilterBuilder.hostAnchorPrefix
        for byte in name.utf8 {
            if byte == UInt8(ascii: ".") { bytes.append(UInt8(ascii: "\\")) }
            bytes.append(byte)
        }
        bytes += Array(#"\."#.utf8)
        bytes += suffix
        bytes += URLFilterBuilder.hostEndClass
        return bytes
    }

    /// Two-label suffixes `first.cc` as few regexes as character classes allow, each naming
    /// exactly some of them: `co\.[jk][pr]` only where `co.jp`, `co.jr`, `co.kp`, `co.kr` all are.
    /// Rows are (first label, first letter of `cc`) with their second letters; rows with the same
    /// second letters share a regex.
    static func suffixPatterns(_ suffixes: [String]) -> [[UInt8]] {
        var rows: [String: [Character: Set<Character>]] = [:]
        for suffix in suffixes {
            let labels = suffix.split(separator: ".")
            guard labels.count == 2, labels[1].count == 2 else { continue }
            let code = Array(labels[1])
            rows[String(labels[0]), default: [:]][code[0], default: []].insert(code[1])
        }
        var patterns: [[UInt8]] = []
        for first in rows.keys.sorted() {
            var groups: [[Character]: [Character]] = [:]
            for (letter, seconds) in rows[first]! { groups[seconds.sorted(), default: []].append(letter) }
            let ordered = groups.map { (firsts: $0.value.sorted(), seconds: $0.key) }.sorted {
                String($0.firsts) < String($1.firsts)
            }
            for group in ordered {
                patterns.append(
                    Array((first + #"\."# + characterClass(group.firsts) + characterClass(group.seconds)).utf8))
            }
        }
        return patterns
    }

    private static func characterClass(_ letters: [Character]) -> String {
        letters.count == 1 ? String(letters[0]) : "[" + String(letters) + "]"
    }
}
