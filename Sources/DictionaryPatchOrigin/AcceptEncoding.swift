/// RFC 9110 §12.5.3 `Accept-Encoding`: whether a request accepts a content coding, q-values included.
public enum AcceptEncoding {
    /// The q-value the field gives `coding` (case-insensitive): its own entry if listed (the lowest, if
    /// listed more than once), else `*`'s, else nil. Malformed entries are ignored.
    public static func quality(of coding: String, inFieldValue value: String) -> Double? {
        let wanted = coding.lowercased()
        var explicit: Double?
        var wildcard: Double?
        for element in value.split(separator: ",") {
            guard let (name, q) = parse(element) else { continue }
            if name == wanted {
                explicit = min(explicit ?? q, q)
            } else if name == "*" {
                wildcard = min(wildcard ?? q, q)
            }
        }
        return explicit ?? wildcard
    }

    /// Whether `dcz` may be sent: listed (or covered by `*`) with a q-value above 0.
    public static func acceptsDCZ(_ value: String?) -> Bool {
        guard let value, let q = quality(of: "dcz", inFieldValue: value) else { return false }
        return q > 0
    }

    /// `coding *( OWS ";" OWS param )`; the only parameter RFC 9110 gives a coding is `q`.
    private static func parse(_ element: Substring) -> (String, Double)? {
        let parts = element.split(separator: ";", omittingEmptySubsequences: false)
        let name = parts[0].trimmingOWS().lowercased()
        guard !name.isEmpty, name.utf8.allSatisfy(isTokenCharacter) else { return nil }
        var q = 1.0
        for parameter in parts.dropFirst() {
            let pair = parameter.trimmingOWS()
            guard pair.count > 2, pair.prefix(2).lowercased() == "q=", let value = qvalue(pair.dropFirst(2)) else { return nil }
            q = value
        }
        return (name, q)
    }

    /// `( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`.
    static func qvalue(_ text: Substring) -> Double? {
        let chars = Array(text.utf8)
        guard let first = chars.first, first == 0x30 || first == 0x31 else { return nil }
        if chars.count == 1 { return Double(first - 0x30) }
        guard chars[1] == 0x2E, chars.count <= 5 else { return nil }
        let fraction = chars[2...]
        guard fraction.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        if first == 0x31 { return fraction.allSatisfy { $0 == 0x30 } ? 1 : nil }
        return Double(String(decoding: chars, as: UTF8.self))
    }

    static func isTokenCharacter(_ c: UInt8) -> Bool {
        (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || (0x30...0x39).contains(c)
            || Array("!#$%&'*+-.^_`|~".utf8).contains(c)
    }
}

extension StringProtocol {
    /// Without leading and trailing SP and HTAB.
    func trimmingOWS() -> String {
        let bytes = Array(utf8)
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
