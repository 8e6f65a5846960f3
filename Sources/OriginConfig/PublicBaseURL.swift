/// The scheme and authority the alias index puts in front of `/lists/<id>.json`: what a GNOME Web
/// user pastes must name the host clients reach (the CDN), not necessarily the origin's socket.
package enum PublicBaseURL {
    static let requirement =
        "must be http:// or https:// and a host (and port), without a path, quotes, spaces or a trailing slash"

    /// `http(s)://authority` only: the value lands in a shell line and in HTML, so nothing that
    /// would need quoting there is accepted.
    static func isValid(_ value: String) -> Bool {
        let authority: Substring
        if value.hasPrefix("https://") {
            authority = value.dropFirst(8)
        } else if value.hasPrefix("http://") {
            authority = value.dropFirst(7)
        } else {
            return false
        }
        return !authority.isEmpty
            && authority.utf8.allSatisfy { byte in
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                    || byte == 0x2E || byte == 0x2D || byte == 0x3A || byte == 0x5B || byte == 0x5D
            }
    }

    /// The origin's own address, for a server nobody configured a public URL for.
    package static func local(address: String, port: Int) -> String {
        let host = address.contains(":") ? "[\(address)]" : address
        return "http://\(host):\(port)"
    }
}
