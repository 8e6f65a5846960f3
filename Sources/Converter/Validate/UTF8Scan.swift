/// Whole-list UTF-8 check for the validator. Lists are almost all ASCII, so ASCII is skipped eight bytes
/// at a time and only the runs of non-ASCII bytes go through the strict checker (`LineClassifier`).
package enum UTF8Scan {
    /// Same verdict as `LineClassifier.isValidUTF8(bytes)`: a valid sequence never contains an ASCII byte,
    /// so the whole is valid exactly when every maximal run of non-ASCII bytes is.
    package static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var index = 0
        while index < count {
            while index + 8 <= count, raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
            }
            while index < count, bytes[index] < 0x80 { index += 1 }
            guard index < count else { return true }
            let runStart = index
            while index < count, bytes[index] >= 0x80 { index += 1 }
            if !LineClassifier.isValidUTF8(UnsafeBufferPointer(rebasing: bytes[runStart..<index])) { return false }
        }
        return true
    }
}
