/// The url-filter regexes that together express one ABP pattern exactly.
struct URLFilter: Equatable, Sendable {
    /// One regex per WebKit rule (more than one when ABP means "separator or end of URL", or a `/regex/`
    /// is a union: `RegexExpansion`).
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
            return RegexFilterRewriter.rewrite(raw.dropFirst().dropLast()).map {
                URLFilter(variants: $0, anchorHost: nil)
            }
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

        if pattern.contains(where: { $0 >= 0x80 }) {
            let bytes = Array(pattern)
            guard
                let encoded = asciiPattern(
                    bytes, hostLength: hostAnchor ? bytes.withUnsafeBufferPointer(leadingHostLength) : 0)
            else {
                return .failure(SkipReasonError(reason: .nonASCII))
            }
            return .success(
                encoded.withUnsafeBufferPointer {
                    emit($0, hostAnchor: hostAnchor, startAnchor: startAnchor, endAnchor: endAnchor)
                })
        }
        return .success(
            pattern.withUnsafeBufferPointer {
                emit($0, hostAnchor: hostAnchor, startAnchor: startAnchor, endAnchor: endAnchor)
            })
    }

    /// Writes the regex for an ASCII pattern whose anchors were already stripped.
    private static func emit(_ bytes: UnsafeBufferPointer<UInt8>, hostAnchor: Bool, startAnchor: Bool, endAnchor: Bool)
        -> URLFilter
    {
        let hostLength = hostAnchor ? leadingHostLength(bytes) : 0
        var anchorHost: String?
        if hostAnchor, hostLength > 0, hostLength < bytes.count,
            bytes[hostLength] == UInt8(ascii: "^") || bytes[hostLength] == UInt8(ascii: "/")
                || bytes[hostLength] == UInt8(ascii: ":")
        {
            // leadingHostLength admits only host bytes; what is left to check is the dots.
            let host = UnsafeBufferPointer(rebasing: bytes[0..<hostLength])
            var dotsValid = host[0] != UInt8(ascii: ".") && host[hostLength - 1] != UInt8(ascii: ".")
            for index in 1..<hostLength where host[index] == UInt8(ascii: ".") && host[index - 1] == UInt8(ascii: ".") {
                dotsValid = false
            }
            if dotsValid {
                let text = String(decoding: host, as: UTF8.self)
                anchorHost = host.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) ? text.lowercased() : text
            }
        }

        var caretCount = 0
        for byte in bytes where byte == UInt8(ascii: "^") { caretCount += 1 }
        let capacity = hostAnchorPrefix.count + 2 * bytes.count + separatorClass.count * caretCount + 2
        var trailingSeparator = false
        var body = [UInt8](unsafeUninitializedCapacity: capacity) { out, written in
            var count = 0
            @inline(__always) func put(_ byte: UInt8) {
                out[count] = byte
                count += 1
            }
            @inline(__always) func put(_ bytes: [UInt8]) {
                for byte in bytes {
                    out[count] = byte
                    count += 1
                }
            }
            if hostAnchor { put(hostAnchorPrefix) } else if startAnchor { put(UInt8(ascii: "^")) }
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "*"):
                    if count < 2 || out[count - 1] != UInt8(ascii: "*") || out[count - 2] != UInt8(ascii: ".") {
                        put(UInt8(ascii: "."))
                        put(UInt8(ascii: "*"))
                    }
                case UInt8(ascii: "^"):
                    if hostAnchor, index == hostLength, hostLength > 0 {
                        put(hostEndClass)
                    } else if index == bytes.count - 1 {
                        trailingSeparator = true
                    } else {
                        put(separatorClass)
                    }
                case UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "?"), UInt8(ascii: "("), UInt8(ascii: ")"),
                    UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "\\"),
                    UInt8(ascii: "$"), UInt8(ascii: "|"):
                    put(UInt8(ascii: "\\"))
                    put(byte)
                default:
                    put(byte)
                }
                index += 1
            }
            written = count
        }
        if body.isEmpty || (body == [UInt8(ascii: "^")] && !endAnchor) {
            return URLFilter(variants: [matchAll], anchorHost: anchorHost)
        }
        if trailingSeparator {
            var withSeparator = body + separatorClass
            if endAnchor { withSeparator.append(UInt8(ascii: "$")) }
            body.append(UInt8(ascii: "$"))
            return URLFilter(variants: [withSeparator, body], anchorHost: anchorHost)
        }
        if endAnchor { body.append(UInt8(ascii: "$")) }
        return URLFilter(variants: [body], anchorHost: anchorHost)
    }

    /// Length of the leading run of host characters (letters, digits, `.`, `-`, `_`, non-ASCII).
    static func leadingHostLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var length = 0
        for byte in bytes {
            let isHostByte =
                NetworkFilterParser.isAlphanumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
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
                bytes[hostLength] == UInt8(ascii: "^") || bytes[hostLength] == UInt8(ascii: "/")
                    || bytes[hostLength] == UInt8(ascii: ":"),
                bytes[0] != UInt8(ascii: "."),
                let host = DomainNormalizer.punycode(Array(bytes[0..<hostLength]))
            else { return nil }
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
