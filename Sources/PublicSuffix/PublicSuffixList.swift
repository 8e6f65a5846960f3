/// The registrable domain (eTLD+1) of a host; `load-type` and party tests compare these. Passed
/// in, so the engine and the converter read no file: `PublicSuffixList` is the usual implementation.
public protocol RegistrableDomainProvider: Sendable {
    func registrableDomain(of host: String) -> String
}

/// Registrable domains by the Public Suffix List algorithm (https://publicsuffix.org/list/): the
/// longest matching rule, `*` wildcards, `!` exceptions, and the implicit rule `*`. Built from the
/// list's text, so it stays pure; `PublicSuffixFile` reads Debian's copy for the executables.
public struct PublicSuffixList: RegistrableDomainProvider, Equatable {
    private let rules: Set<String>
    private let exceptions: Set<String>
    /// Every domain the list names a public suffix below (`amazonaws.com` for `s3.amazonaws.com`).
    private let parentsOfSuffixes: Set<String>

    /// `toASCII` turns a Unicode rule into punycode (hosts arrive in punycode); a rule it cannot
    /// convert is left out. The default keeps ASCII rules only.
    public init(text: String, toASCII: (String) -> String? = { $0.utf8.allSatisfy { $0 < 0x80 } ? $0 : nil }) {
        var rules = Set<String>()
        var exceptions = Set<String>()
        for line in text.split(whereSeparator: \.isNewline) {
            guard let rule = line.split(whereSeparator: \.isWhitespace).first, !rule.hasPrefix("//") else { continue }
            guard let lowered = toASCII(rule.lowercased()) else { continue }
            if lowered.hasPrefix("!") { exceptions.insert(String(lowered.dropFirst())) } else { rules.insert(lowered) }
        }
        self.rules = rules
        self.exceptions = exceptions
        var parents = Set<String>()
        for rule in rules.union(exceptions) {
            var labels = rule.split(separator: ".")
            while labels.count > 1 {
                labels.removeFirst()
                parents.insert(labels.joined(separator: "."))
            }
        }
        self.parentsOfSuffixes = parents
    }

    /// The registrable domain that `host` and every host below it share, or nil when they do not
    /// share one: `host` is a public suffix (each name below it is a site of its own), or the list
    /// names a public suffix below its registrable domain (`s3.amazonaws.com` below `amazonaws.com`).
    /// A rule anchored to such a host fixes the site of every request it matches.
    public func sharedRegistrableDomain(of host: String) -> String? {
        let site = registrableDomain(of: host)
        if Self.isAddress(site) { return site }
        let labels = site.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard suffixLength(labels) < labels.count, !parentsOfSuffixes.contains(site) else { return nil }
        return site
    }

    /// eTLD+1 of `host`; the host itself for IP addresses and for hosts that are public suffixes.
    public func registrableDomain(of host: String) -> String {
        var host = host.lowercased()
        while host.hasSuffix(".") { host.removeLast() }
        if Self.isAddress(host) { return host }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let suffix = suffixLength(labels)
        guard labels.count > suffix else { return host }
        return labels.suffix(suffix + 1).joined(separator: ".")
    }

    /// An IP address: no registrable domain, and no names below it.
    private static func isAddress(_ host: String) -> Bool {
        host.hasPrefix("[") || host.split(separator: ".").allSatisfy({ $0.allSatisfy(\.isNumber) })
    }

    private func suffixLength(_ labels: [String]) -> Int {
        for start in 0..<labels.count {
            let candidate = labels[start...].joined(separator: ".")
            if exceptions.contains(candidate) { return labels.count - start - 1 }
            if rules.contains(candidate) { return labels.count - start }
            if start + 1 <= labels.count - 1, rules.contains((["*"] + labels[(start + 1)...]).joined(separator: ".")) {
                return labels.count - start
            }
        }
        return 1
    }
}
