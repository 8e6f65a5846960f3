/// Strict UTF-8 checks over bytes (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF):
/// the converter's line check and the whole-list check of the validator and the decision engine.
public enum UTF8Validation {
    /// The whole-buffer check. Lists are almost all ASCII, so ASCII is skipped eight bytes at a time
    /// and only the runs of non-ASCII bytes go through `isValidSequence`: a valid sequence never
    /// contains an ASCII byte, so the whole is valid exactly when every maximal non-ASCII run is.
    public static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var index = 0
        while index < count {
            while index + 8 <= count,
                raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                index += 8
            }
            while index < count, bytes[index] < 0x80 { index += 1 }
            guard index < count else { return true }
            let runStart = index
            while index < count, bytes[index] >= 0x80 { index += 1 }
            if !isValidSequence(UnsafeBufferPointer(rebasing: bytes[runStart..<index])) { return false }
        }
        return true
    }

    /// The byte-by-byte check, for short inputs such as one filter line.
    public static func isValidSequence(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var lowerBound: UInt8 = 0x80
            var upperBound: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                lowerBound = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                upperBound = 0x9F
            case 0xF0:
                length = 4
                lowerBound = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                upperBound = 0x8F
            default: return false
            }
            if index + length > count { return false }
            let second = bytes[index + 1]
            if second < lowerBound || second > upperBound { return false }
            var offset = 2
            while offset < length {
                let continuation = bytes[index + offset]
                if continuation < 0x80 || continuation > 0xBF { return false }
                offset += 1
            }
            index += length
        }
        return true
    }
}
