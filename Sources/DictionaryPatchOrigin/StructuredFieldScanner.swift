/// Just enough of RFC 8941's parser for the fields RFC 9842 uses here: byte sequences, and skipping
/// the parameters any item may carry (`;key` or `;key=bare-item`).
struct StructuredFieldScanner {
    private let bytes: [UInt8]
    private(set) var index = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    var atEnd: Bool { index == bytes.count }
    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipSpaces() {
        while let c = current, c == 0x20 || c == 0x09 { index += 1 }
    }

    /// `:base64:` → the base64 text, the scanner after the closing colon.
    mutating func byteSequenceContent() -> Substring? {
        guard current == 0x3A else { return nil }
        guard let end = bytes[(index + 1)...].firstIndex(of: 0x3A) else { return nil }
        let content = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
        index = end + 1
        return Substring(content)
    }

    /// `*( ";" *SP key [ "=" bare-item ] )`; false when malformed.
    mutating func skipParameters() -> Bool {
        while current == 0x3B {
            index += 1
            while current == 0x20 { index += 1 }
            guard let first = current, Self.isLowerAlpha(first) || first == 0x2A else { return false }
            while let c = current, Self.isKeyCharacter(c) { index += 1 }
            if current == 0x3D {
                index += 1
                guard skipBareItem() else { return false }
            }
        }
        return true
    }

    /// Integer/decimal, string, token, byte sequence or boolean.
    private mutating func skipBareItem() -> Bool {
        guard let c = current else { return false }
        switch c {
        case 0x22:  // "string"
            index += 1
            while let s = current {
                index += 1
                if s == 0x5C {
                    guard let escaped = current, escaped == 0x22 || escaped == 0x5C else { return false }
                    index += 1
                } else if s == 0x22 {
                    return true
                } else if s < 0x20 || s > 0x7E {
                    return false
                }
            }
            return false
        case 0x3A:
            guard let content = byteSequenceContent() else { return false }
            return content.utf8.allSatisfy(Self.isBase64)
        case 0x3F:  // ?0 / ?1
            index += 1
            guard let b = current, b == 0x30 || b == 0x31 else { return false }
            index += 1
            return true
        case 0x2D, 0x30...0x39:
            if c == 0x2D { index += 1 }
            let start = index
            while let d = current, (0x30...0x39).contains(d) || d == 0x2E { index += 1 }
            return index > start
        default:
            guard Self.isAlpha(c) || c == 0x2A else { return false }
            while let t = current, Self.isTokenCharacter(t) { index += 1 }
            return true
        }
    }

    static func isBase64(_ c: UInt8) -> Bool { isAlpha(c) || (0x30...0x39).contains(c) || c == 0x2B || c == 0x2F || c == 0x3D }
    static func isAlpha(_ c: UInt8) -> Bool { (0x41...0x5A).contains(c) || isLowerAlpha(c) }
    static func isLowerAlpha(_ c: UInt8) -> Bool { (0x61...0x7A).contains(c) }
    static func isKeyCharacter(_ c: UInt8) -> Bool {
        isLowerAlpha(c) || (0x30...0x39).contains(c) || c == 0x5F || c == 0x2D || c == 0x2E || c == 0x2A
    }
    /// tchar, ":" and "/" (RFC 8941 sf-token).
    static func isTokenCharacter(_ c: UInt8) -> Bool {
        isAlpha(c) || (0x30...0x39).contains(c) || Array("!#$%&'*+-.^_`|~:/".utf8).contains(c)
    }
}
