/// Minimal JSON writing on bytes for the rules layout builds itself (cosmetic groups, list arrays).
enum JSONText {
    /// Appends `text` as a JSON string literal (RFC 8259 §7): quote, backslash and control
    /// characters escaped, everything else (UTF-8 included) verbatim.
    static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0a: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0d: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0f)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `["a","b"]`.
    static func appendStringArray(_ items: [String], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (index, item) in items.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendString(item, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// A WebKit list: a JSON array of rule objects, one rule a line so a diff of two versions reads well.
    static func array(of rules: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(rules.reduce(4) { $0 + $1.count + 2 })
        out.append(UInt8(ascii: "["))
        for (index, rule) in rules.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(0x0a)
            out += rule
        }
        out += [0x0a, UInt8(ascii: "]"), 0x0a]
        return out
    }
}
