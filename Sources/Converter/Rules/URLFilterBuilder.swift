/// The url-filter regexes that together express one ABP pattern exactly.
struct URLFilter: Equatable, Sendable {
    /// One regex per WebKit rule (more than one only when ABP means "separator or end of URL").
    var variants: [[UInt8]]
    /// Lowercased host for `||host^…` patterns, which can only match URLs on that host or its subdomains.
    var anchorHost: String?
}

/// ABP pattern → WebKit url-filter. WebKit matches the regex anywhere in the normalized URL,
/// case-insensitively unless told otherwise, like ABP.
struct URLFilterBuilder {
    /// `||`: scheme, `//`, then the host or any of its parent-domain suffixes.
    static let hostAnchorPrefix = Array(#"^[^:]+://+([^:/]+\.)?"#.utf8)
    /// ABP separator `^` when more pattern follows: anything but a letter, digit, `_`, `-`, `.` or `%`.
    static let separatorClass = Array("[^a-zA-Z0-9_.%-]".utf8)
    /// A separator right after a complete host: normalized URLs always continue with the path or a port.
    static let hostEndClass = Array("[/:]".utf8)
    static let matchAll = Array(".*".utf8)

    static func build(pattern raw: ArraySlice<UInt8>) -> Result<URLFilter, SkipReasonError> {
        if raw.count >= 2, raw.first == UInt8(ascii: "/"), raw.last == UInt8(ascii: "/") {
            return RegexFilterRewriter.rewrite(raw.dropFirst().dropLast()).map { URLFilter(variants: [$0], anchorHost: nil) }
        }
        var pattern = raw
        var hostAnchor = false
        var startAnchor = false
        var endAnchor = false
        if pattern.starts(with: [UInt8(ascii: "|"), UInt8(ascii: "|")]) {
            hostAnchor = true
            pattern = pattern.dropFirst(2)
        } else if pattern.first == UInt8(ascii: "|") {
            startAnchor = true
            pattern = pattern.dropFirst()
        }
        if pattern.last == UInt8(ascii: "|") {
            endAnchor = true
            pattern = pattern.dropLast()
        }
        while pattern.first == UInt8(ascii: "*"), !hostAnchor {
            pattern = pattern.dropFirst()
            startAnchor = false
        }
        while pattern.last == UInt8(ascii: "*") {
            pattern = pattern.dropLast()
            endAnchor = false
        }

        var bytes = Array(pattern)
        var hostLength = hostAnchor ? leadingHostLength(bytes) : 0
        if bytes.contains(where: { $0 >= 0x80 }) {
            guard let encoded = asciiPattern(bytes, hostLength: hostLength) else { return .failure(SkipReasonError(reason: .nonASCII)) }
            bytes = encoded
            hostLength = hostAnchor ? leadingHostLength(bytes) : 0
        }

        var anchorHost: String?
        if hostAnchor, hostLength > 0, hostLength < bytes.count,
           bytes[hostLength] == UInt8(ascii: "^") || bytes[hostLength] == UInt8(ascii: "/") || bytes[hostLength] == UInt8(ascii: ":") {
            let host = bytes[0..<hostLength].map(NetworkOptionsParser.lowercased)
            if DomainNormalizer.isValidHost(host) { anchorHost = String(decoding: host, as: UTF8.self) }
        }

        var body: [UInt8] = []
        body.reserveCapacity(bytes.count * 2 + 24)
        if hostAnchor { body.append(contentsOf: hostAnchorPrefix) } else if startAnchor { body.append(UInt8(ascii: "^")) }
        var trailingSeparator = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "*"):
                if body.count < 2 || body[body.count - 1] != UInt8(ascii: "*") || body[body.count - 2] != UInt8(ascii: ".") {
                    body.append(contentsOf: matchAll)
                }
            case UInt8(ascii: "^"):
                if hostAnchor, index == hostLength, hostLength > 0 {
                    body.append(contentsOf: hostEndClass)
                } else if index == bytes.count - 1 {
                    trailingSeparator = true
                } else {
                    body.append(contentsOf: separatorClass)
                }
            case UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "?"), UInt8(ascii: "("), UInt8(ascii: ")"),
                 UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "\\"),
                 UInt8(ascii: "$"), UInt8(ascii: "|"):
                body.append(UInt8(ascii: "\\"))
                body.append(byte)
            default:
                body.append(byte)
            }
            index += 1
        }
        if body.isEmpty { return .success(URLFilter(variants: [matchAll], anchorHost: anchorHost)) }
        if body == [UInt8(ascii: "^")] && !endAnchor { return .success(URLFilter(variants: [matchAll], anchorHost: anchorHost)) }
        if trailingSeparator {
            var withSeparator = body + separatorClass
            if endAnchor { withSeparator.append(UInt8(ascii: "$")) }
            return .success(URLFilter(variants: [withSeparator, body + [UInt8(ascii: "$")]], anchorHost: anchorHost))
        }
        if endAnchor { body.append(UInt8(ascii: "$")) }
        return .success(URLFilter(variants: [body], anchorHost: anchorHost))
    }

    /// Length of the leading run of host characters (letters, digits, `.`, `-`, `_`, non-ASCII).
    static func leadingHostLength(_ bytes: [UInt8]) -> Int {
        var length = 0
        for byte in bytes {
            let isHostByte = NetworkFilterParser.isAlphanumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_") || byte >= 0x80
            if !isHostByte { break }
            length += 1
        }
        return length
    }

    /// Encodes non-ASCII the way browsers put it in URLs: punycode in the host (only when the host
    /// is complete, i.e. followed by `^`, `/` or `:`), UTF-8 percent-encoding elsewhere.
    static func asciiPattern(_ bytes: [UInt8], hostLength: Int) -> [UInt8]? {
        var result: [UInt8] = []
        var rest = bytes[...]
        if hostLength > 0, bytes[0..<hostLength].contains(where: { $0 >= 0x80 }) {
            guard hostLength < bytes.count,
                  bytes[hostLength] == UInt8(ascii: "^") || bytes[hostLength] == UInt8(ascii: "/") || bytes[hostLength] == UInt8(ascii: ":"),
                  bytes[0] != UInt8(ascii: "."),
                  let host = DomainNormalizer.punycode(Array(bytes[0..<hostLength])) else { return nil }
            result.append(contentsOf: host)
            rest = bytes[hostLength...]
        }
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in rest {
            if byte >= 0x80 {
                result.append(UInt8(ascii: "%"))
                result.append(hex[Int(byte >> 4)])
                result.append(hex[Int(byte & 0x0F)])
            } else {
                result.append(byte)
            }
        }
        return result
    }
}
