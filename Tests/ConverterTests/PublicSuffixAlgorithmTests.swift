import PublicSuffix
import Testing

/// `PublicSuffixList` against the algorithm as publicsuffix.org states it, written plainly here
/// (every suffix of the host joined and looked up, longest first), on Debian's list and hosts made
/// from each of its rules: the list's one-lookup-per-label walk must give the same answers.
@Suite struct PublicSuffixAlgorithmTests {
    /// The rules and exceptions of the list's ASCII lines, as the algorithm reads them.
    private struct PlainList {
        var rules: Set<String> = []
        var exceptions: Set<String> = []
        /// Every name some rule or exception lies below.
        var parents: Set<String> = []

        init(text: String) {
            for line in text.split(whereSeparator: \.isNewline) {
                guard let word = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first,
                    !word.hasPrefix("//"), word.utf8.allSatisfy({ $0 < 0x80 })
                else { continue }
                let rule = word.lowercased()
                let name = rule.hasPrefix("!") ? String(rule.dropFirst()) : rule
                if rule.hasPrefix("!") { exceptions.insert(name) } else { rules.insert(name) }
                let labels = name.split(separator: ".", omittingEmptySubsequences: false)
                for start in labels.indices.dropFirst() { parents.insert(labels[start...].joined(separator: ".")) }
            }
        }

        /// How many labels of `labels` the longest matching rule names (1 for the implicit `*`).
        func suffixCount(_ labels: [Substring]) -> Int {
            for start in labels.indices {
                let candidate = labels[start...].joined(separator: ".")
                if exceptions.contains(candidate) { return labels.count - start - 1 }
                if rules.contains(candidate) { return labels.count - start }
                if start + 1 < labels.count, rules.contains("*." + labels[(start + 1)...].joined(separator: ".")) {
                    return labels.count - start
                }
            }
            return 1
        }

        func registrableDomain(of host: String) -> String {
            let labels = host.split(separator: ".", omittingEmptySubsequences: false)
            let count = suffixCount(labels)
            return count < labels.count ? labels[(labels.count - count - 1)...].joined(separator: ".") : host
        }

        func sharedRegistrableDomain(of host: String) -> String? {
            let labels = host.split(separator: ".", omittingEmptySubsequences: false)
            let count = suffixCount(labels)
            guard count < labels.count else { return nil }
            let site = labels[(labels.count - count - 1)...].joined(separator: ".")
            return parents.contains(site) ? nil : site
        }
    }

    @Test func debiansListAgreesWithThePlainAlgorithm() throws {
        let text = try #require(
            try? String(contentsOfFile: PublicSuffixFile.defaultPath, encoding: .utf8),
            "apt-get install publicsuffix")
        let list = PublicSuffixList(text: text)
        let plain = PlainList(text: text)
        #expect(plain.rules.count > 5_000)
        var hosts: Set<String> = ["localhost", "a.b.example", "x.y.z.w.example.com"]
        for name in plain.rules.union(plain.exceptions) {
            let base = name.hasPrefix("*.") ? "w." + name.dropFirst(2) : name
            for prefix in ["", "a.", "b.a.", "www.b.a.", "s3."] { hosts.insert(prefix + base) }
        }
        for host in hosts {
            #expect(list.registrableDomain(of: host) == plain.registrableDomain(of: host), "\(host)")
            #expect(list.sharedRegistrableDomain(of: host) == plain.sharedRegistrableDomain(of: host), "\(host)")
        }
    }
}
