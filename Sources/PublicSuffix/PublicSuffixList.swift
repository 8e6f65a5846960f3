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
    /// Every domain the list names a public suffix below (`amazonaws.com` for `s3.amazonaws.com`).
    private let parentsOfSuffixes: Set<String>

    private static let sectionMarker = Array("// ===".utf8)
    private static let icannBegin = Array("// ===BEGIN ICANN DOMAINS===".utf8)
    private static let icannEnd = Array("// ===END ICANN DOMAINS===".utf8)
    private static let commentMarker = Array("//".utf8)

    /// `toASCII` turns a Unicode rule into punycode (hosts arrive in punycode); a rule it cannot
    /// convert is left out. The default keeps ASCII rules only.
    public init(text: String, toASCII: (String) -> String? = { $0.utf8.allSatisfy { $0 < 0x80 } ? $0 : nil }) {
        var rules = Set<String>()
        var exceptions = Set<String>()
        var countryCodeSecondLevel: [String] = []
        var inICANNSection = false
        // Bytes, not Characters: the list has some 10,000 lines and a `safari-26` conversion reads it.
        let bytes = Array(text.utf8)
        var lineStart = 0
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != 0x0A, bytes[lineEnd] != 0x0D { lineEnd += 1 }
            defer { lineStart = lineEnd + 1 }
            let line = bytes[lineStart..<lineEnd]
            if line.starts(with: Self.sectionMarker) {
                if line.starts(with: Self.icannBegin) { inICANNSection = true }
                if line.starts(with: Self.icannEnd) { inICANNSection = false }
            }
            // A rule is the line's first word (the list's format: up to the first white space).
            var ruleStart = line.startIndex
            while ruleStart < line.endIndex, line[ruleStart] == 0x20 || line[ruleStart] == 0x09 { ruleStart += 1 }
            var ruleEnd = ruleStart
            while ruleEnd < line.endIndex, line[ruleEnd] != 0x20, line[ruleEnd] != 0x09 { ruleEnd += 1 }
            let rule = line[ruleStart..<ruleEnd]
            guard !rule.isEmpty, !rule.starts(with: Self.commentMarker) else { continue }
            let lowered: String
            if rule.allSatisfy({ $0 < 0x80 }) {
                lowered = String(decoding: rule.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
            } else {
                guard let converted = toASCII(String(decoding: rule, as: UTF8.self).lowercased()) else { continue }
                lowered = converted
            }
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
        var parents = Set<String>()
        for rule in rules.union(exceptions) {
            var rest = rule[...]
            while let dot = rest.firstIndex(of: ".") {
                rest = rest[rest.index(after: dot)...]
                parents.insert(String(rest))
            }
        }
        self.parentsOfSuffixes = parents
    }

    /// The registrable domain that `host` and every host below it share, or nil when they do not
    /// share one: `host` is a public suffix (each name below it is a site of its own), or the list
    /// names a public suffix below its registrable domain (`s3.amazonaws.com` below `amazonaws.com`).
    /// A rule anchored to such a host fixes the site of every request it matches.
    public func sharedRegistrableDomain(of host: String) -> String? {
        let host = Self.trimmed(host)
        if Self.isAddress(host) { return host }
        let (starts, suffix) = suffixLabels(host)
        guard starts.count > suffix else { return nil }
        let site = String(host[starts[starts.count - suffix - 1]...])
        return namesSuffix(below: site) ? nil : site
    }

    /// Whether the list names a public suffix (or an exception) below `domain`: `s3.amazonaws.com`
    /// below `amazonaws.com`, `*.ck` below `ck`. Then the names under `domain` are not all of one site.
    public func namesSuffix(below domain: String) -> Bool { parentsOfSuffixes.contains(domain) }

    /// eTLD+1 of `host`; the host itself for IP addresses and for hosts that are public suffixes.
    public func registrableDomain(of host: String) -> String {
        let host = Self.trimmed(host)
        if Self.isAddress(host) { return host }
        let (starts, suffix) = suffixLabels(host)
        guard starts.count > suffix else { return host }
        return String(host[starts[starts.count - suffix - 1]...])
    }

    private static func trimmed(_ host: String) -> String {
        var host = host.lowercased()
        while host.hasSuffix(".") { host.removeLast() }
        return host
    }

    /// An IP address: no registrable domain, and no names below it.
    private static func isAddress(_ host: String) -> Bool {
        host.hasPrefix("[") || host.allSatisfy { $0 == "." || $0.isNumber }
    }

    /// Where each label of `host` starts, and how many labels its public suffix has (the longest
    /// matching rule, `!` exceptions first, the implicit `*`). Slices of `host`, so no label is joined again.
    private func suffixLabels(_ host: String) -> (starts: [String.Index], count: Int) {
        var starts = [host.startIndex]
        var index = host.startIndex
        while let dot = host[index...].firstIndex(of: ".") {
            index = host.index(after: dot)
            starts.append(index)
        }
        for (label, start) in starts.enumerated() {
            let candidate = String(host[start...])
            if exceptions.contains(candidate) { return (starts, starts.count - label - 1) }
            if rules.contains(candidate) { return (starts, starts.count - label) }
            if label + 1 < starts.count, rules.contains("*." + host[starts[label + 1]...]) {
                return (starts, starts.count - label)
            }
        }
        return (starts, 1)
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
