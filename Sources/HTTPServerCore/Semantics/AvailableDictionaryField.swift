import Foundation

/// RFC 9842 §2.2 `Available-Dictionary`: an RFC 8941 Byte Sequence (`:base64:`), parameters allowed
/// and ignored. Read on bytes and never decoded: the server compares the base64 text with the text
/// of each dictionary hash it prepared, so the hot path allocates nothing.
public enum AvailableDictionaryField {
    /// The base64 text between the colons without its `=` padding (RFC 8941 §4.2.7 lets padding be
    /// missing), or nil when the value is not one Byte Sequence item.
    public static func base64Content(_ value: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        var start = 0
        var end = value.count
        while start < end, value[start] == 0x20 || value[start] == 0x09 { start += 1 }
        while end > start, value[end - 1] == 0x20 || value[end - 1] == 0x09 { end -= 1 }
        guard start < end, value[start] == 0x3A else { return nil }
        var close = start + 1
        while close < end, isBase64(value[close]) { close += 1 }
        // After the closing colon only parameters (`;key[=value]`) may follow.
        guard close < end, value[close] == 0x3A, close + 1 == end || value[close + 1] == 0x3B else { return nil }
        var contentEnd = close
        while contentEnd > start + 1, value[contentEnd - 1] == 0x3D { contentEnd -= 1 }
        return UnsafeBufferPointer(rebasing: value[(start + 1)..<contentEnd])
    }

    /// The field a client sends to offer the dictionary with SHA-256 `sha256`: `:base64:`.
    public static func fieldValue(sha256: [UInt8]) -> String {
        ":" + Data(sha256).base64EncodedString() + ":"
    }

    @inline(__always) static func isBase64(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2B, 0x2F, 0x3D: return true
        default: return false
        }
    }
}
