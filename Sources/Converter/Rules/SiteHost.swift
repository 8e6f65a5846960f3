/// A site an operator names by hand (an unprotected site): one host, normalised as the converter
/// normalises ABP domains (lowercase ASCII, punycode for internationalized names through libidn2),
/// so what a device compares against a page's host is what WebKit sees.
public enum SiteHost {
    /// Why a name is not a host, said so an operator can fix it.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public var entry: String
        public var reason: String
        public var description: String {
            "\"\(entry)\" is not a host name (\(reason)); give a bare host such as example.com"
        }
    }

    /// The normalised host, or a refusal naming the entry. No scheme, path, port, wildcard or
    /// entity (`name.*`); at least one inner dot, so a bare label cannot switch off a whole TLD.
    public static func normalize(_ entry: String) throws(Refusal) -> String {
        let bytes = Array(entry.utf8)
        if bytes.isEmpty { throw Refusal(entry: entry, reason: "empty") }
        if bytes.count > 253 { throw Refusal(entry: entry, reason: "longer than 253 bytes") }
        for (mark, reason) in [
            ("/", "has a '/': no scheme or path"), (":", "has a ':': no scheme or port"),
            ("*", "has a '*': no wildcards"),
            (" ", "has a space"),
        ] where entry.contains(mark) {
            throw Refusal(entry: entry, reason: reason)
        }
        switch DomainNormalizer.normalize(bytes[...]) {
        case .domain(let host):
            guard host.contains(".") else {
                throw Refusal(entry: entry, reason: "no dot: a single label is a top-level domain")
            }
            return host
        case .failure(let reason):
            throw Refusal(
                entry: entry,
                reason: reason == .nonASCII
                    ? "libidn2 refuses this internationalized name" : "not letters, digits, '-', '_' and inner dots")
        }
    }
}
