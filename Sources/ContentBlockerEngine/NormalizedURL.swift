import URLFilterGrammar

/// A URL serialized the way WebKit matches url-filters against it: lowercase scheme and host, default
/// port dropped, empty path as `/`, unsafe bytes percent-encoded, fragment dropped. Only hierarchical
/// URLs (`scheme://host...`) are accepted.
public struct NormalizedURL: Sendable, Equatable, CustomStringConvertible {
    public let text: String
    public let bytes: [UInt8]
    public let scheme: String
    public let host: String

    public static let maximumLength = 8192

    public var description: String { text }

    public init(_ raw: String) throws(URLInputError) {
        var input = Array(raw.utf8)
        while let last = input.last, last == 0x20 || last == 0x09 || last == 0x0A || last == 0x0D { input.removeLast() }
        while let first = input.first, first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D {
            input.removeFirst()
        }
        guard input.count <= Self.maximumLength else { throw .tooLong(raw.utf8.count, limit: Self.maximumLength) }
        guard let colon = input.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            input[..<colon].allSatisfy({ Self.isSchemeByte($0) }),
            input.count >= colon + 3, input[colon + 1] == UInt8(ascii: "/"), input[colon + 2] == UInt8(ascii: "/")
        else {
            throw .notHierarchical(raw)
        }
        let scheme = String(decoding: input[..<colon].map(URLFilterGrammar.lowercase), as: UTF8.self)
        var rest = Array(input[(colon + 3)...])
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) { rest = Array(rest[..<hash]) }
        let authorityEnd =
            rest.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "\\") })
            ?? rest.count
        var authority = Array(rest[..<authorityEnd])
        var userinfo: [UInt8] = []
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            userinfo = Array(authority[...at])
            authority = Array(authority[(at + 1)...])
        }
        var hostBytes = authority
        var port: [UInt8] = []
        let portColon =
            authority.first == UInt8(ascii: "[")
            ? authority.lastIndex(of: UInt8(ascii: "]")).flatMap { authority[$0...].firstIndex(of: UInt8(ascii: ":")) }
            : authority.lastIndex(of: UInt8(ascii: ":"))
        if let portColon {
            hostBytes = Array(authority[..<portColon])
            port = Array(authority[(portColon + 1)...])
            guard port.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { throw .badPort(raw) }
        }
        while hostBytes.last == UInt8(ascii: ".") { hostBytes.removeLast() }
        guard !hostBytes.isEmpty else { throw .noHost(raw) }
        let host = String(decoding: hostBytes.map(URLFilterGrammar.lowercase), as: UTF8.self)
        let defaultPort = ["http": "80", "https": "443", "ws": "80", "wss": "443"][scheme]
        let portText = port.isEmpty ? "" : String(Int(String(decoding: port, as: UTF8.self)) ?? 0)
        var pathAndQuery = Array(rest[authorityEnd...])
        var query: [UInt8]?
        if let question = pathAndQuery.firstIndex(of: UInt8(ascii: "?")) {
            query = Array(pathAndQuery[(question + 1)...])
            pathAndQuery = Array(pathAndQuery[..<question])
        }
        var path = pathAndQuery.map { $0 == UInt8(ascii: "\\") ? UInt8(ascii: "/") : $0 }
        if path.first != UInt8(ascii: "/") { path.insert(UInt8(ascii: "/"), at: 0) }
        var out = Array(scheme.utf8) + Array("://".utf8) + userinfo + Array(host.utf8)
        if !portText.isEmpty, portText != defaultPort { out += Array(":\(portText)".utf8) }
        out += Self.percentEncode(path, unsafe: Array(" \"<>`{}".utf8))
        if let query { out += [UInt8(ascii: "?")] + Self.percentEncode(query, unsafe: Array(" \"<>'".utf8)) }
        self.scheme = scheme
        self.host = host
        self.bytes = out
        self.text = String(decoding: out, as: UTF8.self)
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    private static func percentEncode(_ bytes: [UInt8], unsafe: [UInt8]) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for byte in bytes {
            if byte < 0x21 || byte > 0x7E || unsafe.contains(byte) {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            } else {
                out.append(byte)
            }
        }
        return out
    }
}

/// A URL the engine cannot take, with a message a user can act on.
public enum URLInputError: Error, Equatable, CustomStringConvertible, Sendable {
    case tooLong(Int, limit: Int)
    case notHierarchical(String)
    case noHost(String)
    case badPort(String)

    public var description: String {
        switch self {
        case .tooLong(let length, let limit): return "the URL is \(length) bytes long; the limit is \(limit)"
        case .notHierarchical(let url): return "\(url.prefix(200)) is not a URL of the form scheme://host/path"
        case .noHost(let url): return "\(url.prefix(200)) has no host"
        case .badPort(let url): return "\(url.prefix(200)) has a port that is not a number"
        }
    }
}
