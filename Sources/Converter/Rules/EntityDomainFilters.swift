import PublicSuffix

/// The document url-filters that name the hosts of an ABP entity domain `name.*` (the name under a
/// public suffix, and its subdomains) without naming any other host, so a hiding rule for it can
/// act exactly in those documents, in frames too (`CosmeticRuleBuilder`). WebKit's url-filter
/// grammar has no alternation, so each entity gets two wide filters, and the hosts they name
/// beyond the entity are cancelled by carve-outs (`ignore-previous-rules`) placed after every
/// entity rule of the list, which the list's entities share:
/// - one-label suffixes: `^[^:]+://+([^:/]+\.)?amazon\.[^./:]+[/:]`, less the hosts where
///   `amazon.L` is itself a public suffix or holds one (`*.ck`: `www.amazon.ck` is registrable as
///   a whole);
/// - two-label suffixes: `amazon\.com?\.[^./:][^./:]` for the ICANN country-code suffixes whose
///   first label is one of `firstLabels` (`co.uk`, `com.au`), less the hosts under every other
///   `co.cc`, `com.cc`, and under a listed one the name reaches.
/// Hosts under other suffixes of two labels or more (`amazon.blogspot.com`) are not named: the
/// rule hides less than ABP there, never more. A carve-out cancels every earlier rule that
/// matches the document, so it may also cancel another name's filter on such a host (a name
/// whose last label is `co`, say): that rule then hides less than ABP, never more.
struct EntityDomainFilters: Sendable {
    /// The registries' commercial labels: where a brand registers under a country-code domain.
    static let commercialLabels: Set<String> = ["co", "com"]

    private let reach: SuffixReach
    private let countryCodeSuffixes: [String]
    /// The country-code suffixes some rule of the list lies below (`blogspot.co.uk` below `co.uk`):
    /// only under these can a name hold a public suffix, so only these are checked per name.
    private let reachableSuffixes: [String]
    /// The first labels of `countryCodeSuffixes`, as the regex the two-label filter puts after the name.
    private let firstLabelPattern: String?
    /// The url-filters of the hosts the two-label filters name under a suffix not listed.
    private let unlistedSuffixCarveOuts: [[UInt8]]

    init(publicSuffixes: PublicSuffixList, firstLabels: Set<String> = commercialLabels) {
        reach = SuffixReach(publicSuffixes)
        countryCodeSuffixes = publicSuffixes.countryCodeSuffixes(firstLabels: firstLabels)
        reachableSuffixes = countryCodeSuffixes.filter { publicSuffixes.namesSuffix(below: $0) }
        let rows = Self.rows(countryCodeSuffixes)
        firstLabelPattern = Self.alternatives(rows.keys.sorted())
        unlistedSuffixCarveOuts =
            firstLabelPattern == nil ? [] : Self.complement(rows).map { Self.belowAnyName(suffix: $0) }
    }

    /// The url-filters of `name.*` (`name` normalized, without `.*`), carve-outs aside.
    func filters(name: String) -> [[UInt8]] {
        var filters = [Self.filter(name: name, suffix: Self.label)]
        if let firstLabelPattern {
            let code = Self.labelCharacter + Self.labelCharacter
            filters.append(Self.filter(name: name, suffix: firstLabelPattern + #"\."# + code))
        }
        return filters
    }

    /// The documents the `filters` of `names` match where ABP's `name.*` does not hide, in a fixed
    /// order: under a wildcard label (`*.ck`), every host of three labels or more (whose public
    /// suffix then has two labels at least); under another label `L` that reaches into a name
    /// (`github.io`), `name.L` and its subdomains; under `co.cc` or `com.cc` not listed, every host
    /// of three labels or more; under a listed one the name reaches, `name.co.cc` and its subdomains.
    func carveOuts(names: [String]) -> [[UInt8]] {
        guard !names.isEmpty else { return [] }
        var wildcards = Set<String>()
        var named: [[UInt8]] = []
        for name in names {
            for label in reach.lastLabels(reachingInto: name).sorted() {
                if reach.isWildcard(label) {
                    wildcards.insert(label)
                } else {
                    named.append(Self.filter(name: name, suffix: label))
                }
            }
            for suffix in reachableSuffixes where reach.reaches(into: name, below: suffix) {
                named.append(Self.filter(name: name, suffix: suffix.replacingOccurrences(of: ".", with: #"\."#)))
            }
        }
        let belowWildcards = wildcards.sorted().map { Self.belowAnyName(suffix: Self.label + #"\."# + $0) }
        return belowWildcards + unlistedSuffixCarveOuts + named
    }

    /// A label: one character or more, none a dot or what ends a host.
    private static let label = "[^./:]+"
    /// One character of a label.
    private static let labelCharacter = "[^./:]"

    /// `^[^:]+://+([^:/]+\.)?name\.SUFFIX[/:]`, the dots of `name` escaped; `suffix` is already a regex.
    private static func filter(name: String, suffix: String) -> [UInt8] {
        var bytes = URLFilterBuilder.hostAnchorPrefix
        for byte in name.utf8 {
            if byte == UInt8(ascii: ".") { bytes.append(UInt8(ascii: "\\")) }
            bytes.append(byte)
        }
        bytes += Array(#"\."#.utf8)
        bytes += Array(suffix.utf8)
        bytes += URLFilterBuilder.hostEndClass
        return bytes
    }

    /// The hosts of a label or more under `suffix` (a regex): `…[^./:]+\.SUFFIX[/:]`.
    private static func belowAnyName(suffix: String) -> [UInt8] {
        URLFilterBuilder.hostAnchorPrefix + Array((label + #"\."# + suffix).utf8) + URLFilterBuilder.hostEndClass
    }

    /// The listed suffixes `first.cc` as first label → first character of `cc` → its second characters.
    private static func rows(_ suffixes: [String]) -> [String: [Character: Set<Character>]] {
        var rows: [String: [Character: Set<Character>]] = [:]
        for suffix in suffixes {
            let labels = suffix.split(separator: ".")
            guard labels.count == 2, labels[1].count == 2 else { continue }
            let code = Array(labels[1])
            rows[String(labels[0]), default: [:]][code[0], default: []].insert(code[1])
        }
        return rows
    }

    /// The first labels as one regex, a label and the same label with one more character sharing
    /// it (`com?` for `co` and `com`); nil when there is none, and `(a|b)` needs alternation, so
    /// labels that do not pair so are refused (the caller then names no two-label suffix).
    static func alternatives(_ labels: [String]) -> String? {
        switch labels.count {
        case 1: return labels[0]
        case 2 where labels[1].count == labels[0].count + 1 && labels[1].hasPrefix(labels[0]):
            return labels[0] + String(labels[1].last!) + "?"
        default: return nil
        }
    }

    /// Regexes of `first\.cc` that together match every two-character `cc` after each first label
    /// that the rows do not list, and no listed one: `co\.[^ab./:][^./:]` for the first characters
    /// not listed, then `co\.a[^eg./:]` for each group of first characters with the same listed
    /// second characters.
    static func complement(_ rows: [String: [Character: Set<Character>]]) -> [String] {
        var patterns: [String] = []
        for first in rows.keys.sorted() {
            let row = rows[first]!
            let prefix = first + #"\."#
            patterns.append(prefix + "[^" + String(row.keys.sorted()) + "./:]" + labelCharacter)
            var groups: [[Character]: [Character]] = [:]
            for (character, seconds) in row { groups[seconds.sorted(), default: []].append(character) }
            let ordered = groups.map { (firsts: $0.value.sorted(), seconds: $0.key) }.sorted {
                String($0.firsts) < String($1.firsts)
            }
            for group in ordered {
                let firsts = group.firsts.count == 1 ? String(group.firsts[0]) : "[" + String(group.firsts) + "]"
                patterns.append(prefix + firsts + "[^" + String(group.seconds) + "./:]")
            }
        }
        return patterns
    }
}
