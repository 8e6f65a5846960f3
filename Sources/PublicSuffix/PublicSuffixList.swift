/// The registrable domain (eTLD+1) of a host; `load-type` and party tests compare these. Passed
/// in, so the engine and the converter read no file: `PublicSuffixList` is the usual implementation.
public protocol RegistrableDomainProvider: Sendable {
    func registrableDomain(of host: String) -> String
}

/// Registrable domains by the Public Suffix List algorithm (https://publicsuffix.org/list/): the
/// longest matching rule, `*` wildcards, `!` exceptions, and the implicit rule `*`. Built from the
/// list's text, so it stays pure; `PublicSuffixFile` reads Debian's copy for the executables.
public struct PublicSuffixList: RegistrableDomainProvider, Equatable {
    /// What the list says of one name: one dictionary, so a label of a host costs one lookup.
    struct NameKinds: OptionSet, Equatable {
        let rawValue: UInt8
        /// A rule (`co.uk`, `*.ck`).
        static let rule = NameKinds(rawValue: 1)
        /// An exception (`www.ck` for `!www.ck`).
        static let exception = NameKinds(rawValue: 2)
        /// The name under a wildcard rule (`ck` for `*.ck`).
        static let wildcardBase = NameKinds(rawValue: 4)
        /// A rule or an exception lies below the name (`amazonaws.com` for `s3.amazonaws.com`).
        static let namesSuffixBelow = NameKinds(rawValue: 8)
    }

    /// The list's names, lowercase ASCII (`*.ck`, `co.uk`, `ck`), with what the list says of each.
    private let kinds: [String: NameKinds]
    /// The ICANN section's rules of two labels under a two-letter top-level domain (`co.uk`), sorted.
    private let countryCodeSecondLevel: [String]

    private static let sectionMarker = Array("// ===".utf8)
    private static let icannBegin = Array("// ===BEGIN ICANN DOMAINS===".utf8)
    private static let icannEnd = Array("// ===END ICANN DOMAINS===".utf8)
    private static let commentMarker = Array("//".utf8)
    private static let wildcardPrefix = Array("*.".utf8)

    /// `toASCII` turns a Unicode rule into punycode (hosts arrive in punycode); a rule it cannot
    /// convert is left out. The default keeps ASCII rules only.
    public init(text: String, toASCII: (String) -> String? = { $0.utf8.allSatisfy { $0 < 0x80 } ? $0 : nil }) {
        self.init(bytes: Array(text.utf8), toASCII: toASCII)
    }

    /// The list from its file's bytes (UTF-8), read without decoding the whole text first.
    public init(bytes: [UInt8], toASCII: (String) -> String? = { $0.utf8.allSatisfy { $0 < 0x80 } ? $0 : nil }) {
        // Bytes, not Characters: the list has some 10,000 lines and a `safari-26` conversion reads it.
        var kinds = [String: NameKinds](minimumCapacity: bytes.count / 12)
        var countryCodeSecondLevel: [String] = []
        var inICANNSection = false
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
            var lowered: [UInt8]
            if rule.allSatisfy({ $0 < 0x80 }) {
                lowered = rule.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
            } else {
                guard let converted = toASCII(String(decoding: rule, as: UTF8.self).lowercased()) else { continue }
                lowered = Array(converted.utf8)
            }
            let isException = lowered.first == UInt8(ascii: "!")
            if isException { lowered.removeFirst() }
            Self.markParents(of: lowered, in: &kinds)
            let name = String(decoding: lowered, as: UTF8.self)
            kinds[name, default: []].insert(isException ? .exception : .rule)
            guard !isException else { continue }
            if lowered.starts(with: Self.wildcardPrefix) {
                kinds[String(decoding: lowered.dropFirst(2), as: UTF8.self), default: []].insert(.wildcardBase)
            }
            if inICANNSection, Self.isCountryCodeSecondLevel(name) { countryCodeSecondLevel.append(name) }
        }
        self.kinds = kinds
        self.countryCodeSecondLevel = countryCodeSecondLevel.sorted()
    }

    /// Marks every name after a dot of `rule` (`amazonaws.com` and `com` for `s3.amazonaws.com`),
    /// longest first: a name already marked had all of its own parents marked, so the walk stops.
    private static func markParents(of rule: [UInt8], in kinds: inout [String: NameKinds]) {
        var index = 0
        while index < rule.count {
            if rule[index] == UInt8(ascii: "."),
                !kinds[String(decoding: rule[(index + 1)...], as: UTF8.self), default: []].insert(.namesSuffixBelow)
                    .inserted
            {
                return
            }
            index += 1
        }
    }

    /// The list's rules (`*.ck`, `co.uk`), for `SuffixReach`'s index.
    var rules: some Sequence<String> { kinds.lazy.filter { $0.value.contains(.rule) }.map(\.key) }

    /// Whether `name` is one of the list's rules (`co.uk`, `*.ck`).
    func isRule(_ name: String) -> Bool { kinds[name]?.contains(.rule) == true }

    /// Whether the list has the wildcard rule `*.name` (`*.ck` for `ck`).
    func hasWildcard(under name: String) -> Bool { kinds[name]?.contains(.wildcardBase) == true }

    /// The registrable domain that `host` and every host below it share, or nil when they do not
    /// share one: `host` is a public suffix (each name below it is a site of its own), or the list
    /// names a public suffix below its registrable domain (`s3.amazonaws.com` below `amazonaws.com`).
    /// A rule anchored to such a host fixes the site of every request it matches.
    public func sharedRegistrableDomain(of host: String) -> String? {
        let host = Self.trimmed(host)
        if Self.isAddress(host) { return host }
        guard let site = registrablePart(of: host) else { return nil }
        return namesSuffix(below: site) ? nil : site
    }

    /// Whether the list names a public suffix (or an exception) below `domain`: `s3.amazonaws.com`
    /// below `amazonaws.com`, `*.ck` below `ck`. Then the names under `domain` are not all of one site.
    public func namesSuffix(below domain: String) -> Bool { kinds[domain]?.contains(.namesSuffixBelow) == true }

    /// eTLD+1 of `host`; the host itself for IP addresses and for hosts that are public suffixes.
    public func registrableDomain(of host: String) -> String {
        let host = Self.trimmed(host)
        if Self.isAddress(host) { return host }
        return registrablePart(of: host) ?? host
    }

    /// `host` in lowercase without trailing dots; the host itself (no copy) when it has neither.
    private static func trimmed(_ host: String) -> String {
        let utf8 = host.utf8
        if utf8.last != UInt8(ascii: "."), !utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A || $0 >= 0x80 }) {
            return host
        }
        var host = host.lowercased()
        while host.hasSuffix(".") { host.removeLast() }
        return host
    }

    /// An IP address: no registrable domain, and no names below it.
    private static func isAddress(_ host: String) -> Bool {
        let utf8 = host.utf8
        if utf8.first == UInt8(ascii: "[") { return true }
        // ASCII hosts byte by byte; others by Character, where digits of other scripts count too.
        guard utf8.allSatisfy({ $0 < 0x80 }) else { return host.allSatisfy { $0 == "." || $0.isNumber } }
        return utf8.allSatisfy { $0 == UInt8(ascii: ".") || $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// The registrable domain of `host` (trimmed); nil when `host` is a public suffix itself. The
    /// public suffix is the longest matching rule (`!` exceptions first, then rules and wildcards,
    /// the implicit `*` last), found from the last label up with one lookup per label: a rule, an
    /// exception or a wildcard rule that names the suffix from a label lies below the suffix from the
    /// next label, so the walk stops at the first suffix the list names nothing below.
    private func registrablePart(of host: String) -> String? {
        var host = host
        return host.withUTF8 { bytes in
            func name(from start: Int) -> String {
                String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self)
            }
            var label = bytes.count
            while label > 0, bytes[label - 1] != UInt8(ascii: ".") { label -= 1 }
            // The implicit `*`: the last label is the suffix.
            var registrable = Self.labelStart(before: label, in: bytes)
            var shorter: NameKinds = []
            while true {
                let kind = kinds[name(from: label)] ?? []
                if kind.contains(.exception) {
                    registrable = label
                } else if kind.contains(.rule) || shorter.contains(.wildcardBase) {
                    registrable = Self.labelStart(before: label, in: bytes)
                }
                guard kind.contains(.namesSuffixBelow), let next = Self.labelStart(before: label, in: bytes) else {
                    return registrable.map(name(from:))
                }
                shorter = kind
                label = next
            }
        }
    }

    /// The start of the label before the one starting at `label`; nil for the first label.
    private static func labelStart(before label: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard label > 0 else { return nil }
        var start = label - 1
        while start > 0, bytes[start - 1] != UInt8(ascii: ".") { start -= 1 }
        return start
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
