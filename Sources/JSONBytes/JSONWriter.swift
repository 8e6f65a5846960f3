/// Appends JSON text straight into a byte buffer, so rules, manifests and explanations are
/// serialized once, without Foundation or intermediate strings. The one JSON string escaping of
/// the package.
///
/// The escaping rule (RFC 8259 §7): `"` and `\` get a backslash; LF, TAB and CR are `\n`, `\t`
/// and `\r`; every other control byte (below 0x20) and DEL (0x7F) is `\u00XX` in lowercase hex;
/// everything else, including non-ASCII UTF-8, is copied as it is. It is the converter's rule
/// because the converter's output is what devices compile and CDNs cache: its bytes must not
/// change (`scripts/check-byte-identity.sh`), so the other writers adopted it. Escaping DEL,
/// which JSON allows raw, keeps an invisible byte visible in a list a person reads.
public enum JSONWriter {
    @usableFromInline static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `bytes` as a quoted JSON string. Runs of bytes that need no escaping are copied in bulk.
    @inlinable
    public static func appendString<C: Collection>(_ bytes: C, to out: inout [UInt8]) where C.Element == UInt8 {
        let handled: Void? = bytes.withContiguousStorageIfAvailable { appendString(buffer: $0, to: &out) }
        if handled != nil { return }
        out.append(UInt8(ascii: "\""))
        for byte in bytes {
            if needsEscape(byte) { appendEscaped(byte, to: &out) } else { out.append(byte) }
        }
        out.append(UInt8(ascii: "\""))
    }

    @inlinable @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F
    }

    /// Copies runs of bytes that need no escaping in bulk (generated url-filters escape only a few `\\`).
    @inlinable
    public static func appendString(buffer: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.reserveCapacity(out.count + buffer.count + 16)
        out.append(UInt8(ascii: "\""))
        var runStart = 0
        for index in 0..<buffer.count where needsEscape(buffer[index]) {
            if index > runStart { out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<index])) }
            appendEscaped(buffer[index], to: &out)
            runStart = index + 1
        }
        if buffer.count > runStart {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<buffer.count]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends a literal fragment such as `{"trigger":{` with one copy.
    @inlinable @inline(__always)
    public static func appendLiteral(_ text: StaticString, to out: inout [UInt8]) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    @inlinable @inline(__always)
    static func appendEscaped(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"):
            out.append(UInt8(ascii: "\\"))
            out.append(byte)
        case 0x0A:
            out.append(UInt8(ascii: "\\"))
            out.append(UInt8(ascii: "n"))
        case 0x09:
            out.append(UInt8(ascii: "\\"))
            out.append(UInt8(ascii: "t"))
        case 0x0D:
            out.append(UInt8(ascii: "\\"))
            out.append(UInt8(ascii: "r"))
        default:
            out.append(contentsOf: [
                UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)],
            ])
        }
    }

    @inlinable
    public static func appendString(_ string: String, to out: inout [UInt8]) {
        appendString(string.utf8, to: &out)
    }

    /// Appends `"key":` (the key must not need escaping).
    @inlinable
    public static func appendKey(_ key: StaticString, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(UInt8(ascii: "\""))
        out.append(UInt8(ascii: ":"))
    }

    /// Appends `["a","b"]`.
    @inlinable
    public static func appendStringArray(_ strings: [String], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (index, string) in strings.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendString(string, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }
}
