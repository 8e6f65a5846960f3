/// The package's one percent-decoder (RFC 3986 §2.1), for request targets and query components.
public enum PercentDecoding {
    /// What `+` means: itself (a path, RFC 3986) or a space (a form-encoded query, as browsers send it).
    public enum Plus: Sendable {
        case literal
        case space
    }

    /// The decoded bytes, or nil for a `%` not followed by two hex digits. Decodes once: `%2525`
    /// becomes `%25`, never `%`.
    public static func decode<Bytes: Collection>(_ bytes: Bytes, plus: Plus = .literal) -> [UInt8]?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]),
                    let low = hexValue(bytes[index + 2])
                else {
                    return nil
                }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(byte == UInt8(ascii: "+") && plus == .space ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
