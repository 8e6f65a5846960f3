/// The registrable domain (eTLD+1) of a host; `load-type` and party tests compare these. Passed
/// in, so the engine and the converter read no file: `PublicSuffixList` is the usual implementation.
public protocol RegistrableDomainProvider: Sendable {
    func registrableDomain(of host: String) -> String
}

/// Registrable domains by the Public Suffix List algorithm (https://publicsuffix.org/list/): the
/// longest matching rule, `*` wildcards, `!` exceptions, and the implicit rule `*`. Built from the
/// list's text, so it stays pure; `PublicSuffixFile` reads Debian's copy for the executables.
public struct PublicSuffixList: RegistrableDomainProvider, Equatable {
    /// The list's rules, lowercase ASCII (`*.ck`, `co.uk`), read by `SuffixReach` too.
    let rules: Set<String>
    private let exceptions: Set<String>
    /// The ICANN section's rules of two labels under a two-letter top-level domain (`co.uk`), sorted.
    private let countryCodeSecondLevel: [String]

    /// `toASCII` turns a Unicode rule into punycode (hosts arrive in punycode); a rule it cannot
    /// convert is left out. The default keeps ASCII rules only.
    public init(text: String, toASCII: (String) -> String? = { $0.utf8.allSatisfy { $0 < 0x80 } ? $0 : nil }) {
        var rules = Set<String>()
        var exceptions = Set<String>()
        var countryCodeSecondLevel: [String] = []
        var inICANNSection = false
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("// ===") {
                if line.hasPrefix("// ===BEGIN ICANN DOMAINS===") { inICANNSection = true }
                if line.hasPrefix("// ===END ICANN DOMAINS===") { inICANNSection = false }
            }
            guard let rule = line.split(whereSeparator: \.isWhitespace).first, !rule.hasPrefix("//") else { continue }
            guard let lowered = toASCII(rule.lowercased()) else { continue }
            if lowered.hasPrefix("!") {
                exceptions.insert(String(lowered.dropFirst()))
            } else {
                rules.insert(lowered)
                if inICANNSection, Self.isCountryCodeSecondLevel(lowered) { countryCodeSecondLevel.append(lowered) }
            }
        }
        self.rules = rules
        self.exceptions = exceptions
        self.countryCodeSecondLevel = countryCodeSecondLevel.sorted()
    }

    /// eTLD+1 of `host`; the host itself for IP addresses and for hosts that are public suffixes.
    public func registrableDomain(of host: String) -> String {
        var host = host.lowercased()
        while host.hasSuffix(".") { host.removeLast() }
        if host.hasPrefix("[") || host.split(separator: ".").allSatisfy({ $0.allSatisfy(\.isNumber) }) { return host }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let suffix = suffixLength(labels)
        guard labels.count > suffix else { return host }
        return labels.suffix(suffix + 1).joined(separator: ".")
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

    /// The ICANN suffixes of two labels `first.cc` under a two-letter (country-code) top-level
    /// domain whose first label is one of `firstLabels` (`co.uk`, `com.au`), sorted.
    public func countryCodeSuffixes(firstLabels: Set<String>) -> [String] {
        countryCodeSecondLevel.filter { firstLabels.contains(String($0.dropLast(3))) }
    }

    /// `label.cc`: one dot, two characters after it, none of them a wildcard.
    private static func isCountryCodeSecondLevel(_ rule: String) -> Bool {
        let bytes = rule.utf8
        guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")), dot != bytes.startIndex,
            bytes.distance(from: dot, to: bytes.endIndex) == 3, !bytes.contains(UInt8(ascii: "*"))
        else { return false }
        return bytes[bytes.index(after: dot)...].allSatisfy { $0 != UInt8(ascii: ".") }
    }
}
