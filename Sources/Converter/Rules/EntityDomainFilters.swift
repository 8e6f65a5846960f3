import PublicSuffix

/// The document url-filters that name the hosts of an ABP entity domain `name.*` (the name under a
/// public suffix, and its subdomains) without naming any other host, so a hiding rule for it can
/// act exactly in those documents, in frames too (`CosmeticRuleBuilder`). WebKit's url-filter
/// grammar has no alternation, so the set is a union of regexes, each a rule of its own:
/// - under a one-label suffix: `^[^:]+://+([^:/]+\.)?amazon\.[^./:]+[/:]`, with the labels whose
///   `amazon.L` is itself a public suffix or holds one (`*.ck`: `www.amazon.ck` is registrable as a
///   whole) left out of the label class: character classes split by the labels' letters;
/// - under two-label suffixes: only the ICANN country-code suffixes whose first label is one of
///   `firstLabels` (`co.uk`, `com.au`), grouped into character classes that name exactly those.
/// Hosts under other suffixes of two labels or more (`amazon.blogspot.com`) are not named: the
/// rule hides less than ABP there, never more.
struct EntityDomainFilters: Sendable {
    /// The registries' commercial labels: where a brand registers under a country-code domain.
    static let commercialLabels: Set<String> = ["co", "com"]

    private let reach: SuffixReach
    private let countryCodeSuffixes: [String]
    /// The country-code suffixes some rule of the list lies below (`blogspot.co.uk` below `co.uk`):
    /// only under these can a name hold a public suffix, so only these are checked per name.
    private let reachableSuffixes: [String]
    /// `suffixPatterns(countryCodeSuffixes)`: the patterns of every name no suffix reaches into.
    private let allSuffixPatterns: [[UInt8]]

    init(publicSuffixes: PublicSuffixList, firstLabels: Set<String> = commercialLabels) {
        reach = SuffixReach(publicSuffixes)
        countryCodeSuffixes = publicSuffixes.countryCodeSuffixes(firstLabels: firstLabels)
        reachableSuffixes = countryCodeSuffixes.filter { publicSuffixes.namesSuffix(below: $0) }
        allSuffixPatterns = Self.suffixPatterns(countryCodeSuffixes)
    }

    /// The url-filters of `name.*` (`name` normalized, without `.*`), in a fixed order.
    func filters(name: String) -> [[UInt8]] {
        var filters: [[UInt8]] = []
        let excluded = reach.lastLabels(reachingInto: name)
        if let labels = Self.labelPatterns(excluding: excluded) {
            for label in labels { filters.append(Self.filter(name: name, suffix: Array(label.utf8))) }
        }
        let reached = Set(reachableSuffixes.filter { reach.reaches(into: name, below: $0) })
        let suffixPatterns =
            reached.isEmpty
            ? allSuffixPatterns : Self.suffixPatterns(countryCodeSuffixes.filter { !reached.contains($0) })
        for suffix in suffixPatterns { filters.append(Self.filter(name: name, suffix: suffix)) }
        return filters
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

    /// Regexes that together match exactly the host labels not in `excluded`. Labels all of one
    /// length `n` (the wildcard country codes): one regex for the other lengths, then the labels of
    /// length `n` by the excluded labels' letter tree, `[^bc./:][^./:]`, `b[^d./:]`, `c[^k./:]` for
    /// `bd` and `ck`; mixed lengths: the letter tree alone, `[^c./:][^./:]*`, `c([^k./:][^./:]*)?`,
    /// `ck[^./:]+`. Nil when an excluded label has a character other than a letter or a digit.
    static func labelPatterns(excluding excluded: Set<String>) -> [String]? {
        let letters = excluded.flatMap(\.utf8)
        guard
            letters.allSatisfy({
                $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") || $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")
            })
        else { return nil }
        let lengths = Set(excluded.map(\.utf8.count))
        guard lengths.count == 1, let length = lengths.first else {
            return letterTree(excluded.map { Substring($0) }, prefix: "", length: nil)
        }
        return [otherLengths(than: length)] + letterTree(excluded.map { Substring($0) }, prefix: "", length: length)
    }

    private static let labelCharacter = "[^./:]"

    /// A label of any length but `length`: `[^./:]([^./:][^./:]+)?` for 2 (1, or 3 and more).
    private static func otherLengths(than length: Int) -> String {
        // Lengths 0 and 2 or more, then each step one more character in front: 0…k-1 and k+1 or more.
        var pattern = "(" + labelCharacter + labelCharacter + "+)?"
        for _ in 1..<length { pattern = "(" + labelCharacter + pattern + ")?" }
        // Drop the outer optional group's `(` … `)?`: a label has at least one character.
        return String(pattern.dropFirst().dropLast(2))
    }

    /// The labels after `prefix` that are not in `remaining` (the excluded labels less `prefix`),
    /// one regex per node: all of `length` characters, or of any length when `length` is nil.
    private static func letterTree(_ remaining: [Substring], prefix: String, length: Int?) -> [String] {
        let firsts = Set(remaining.compactMap(\.first)).sorted()
        let depth = prefix.count
        var patterns: [String]
        if let length {
            if depth == length { return [] }
            let tail = String(repeating: labelCharacter, count: length - depth - 1)
            patterns = [prefix + "[^" + String(firsts) + "./:]" + tail]
        } else {
            let next = "[^" + String(firsts) + "./:]" + labelCharacter + "*"
            // A label may end at `prefix` unless `prefix` itself is excluded (a label is never empty).
            let mayEnd = depth > 0 && !remaining.contains("")
            patterns = [prefix + (mayEnd ? "(" + next + ")?" : next)]
        }
        for first in firsts {
            let below = remaining.filter { $0.first == first }.map { $0.dropFirst() }
            patterns += letterTree(below, prefix: prefix + String(first), length: length)
        }
        return patterns
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
