/// Splits raw list bytes into trimmed lines without copying: a UTF-8 BOM is dropped, `\n`, `\r\n`
/// and lone `\r` all end a line, and surrounding spaces and tabs are trimmed.
struct FilterLineReader {
    /// Half-open byte ranges of each physical line, trimmed (may be empty).
    static func lineRanges(in bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(bytes.count / 24 + 1)
        bytes.withUnsafeBufferPointer { buffer in
            var index = 0
            let count = buffer.count
            if count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { index = 3 }
            if index == count { return }
            var start = index
            while index < count {
                let byte = buffer[index]
                if byte == 0x0A || byte == 0x0D {
                    ranges.append(trimmed(buffer, start, index))
                    if byte == 0x0D, index + 1 < count, buffer[index + 1] == 0x0A { index += 1 }
                    index += 1
                    start = index
                } else {
                    index += 1
                }
            }
            if start < count { ranges.append(trimmed(buffer, start, count)) }
        }
        return ranges
    }

    private static func trimmed(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Range<Int> {
        var lower = start
        var upper = end
        while lower < upper, buffer[lower] == 0x20 || buffer[lower] == 0x09 { lower += 1 }
        while upper > lower, buffer[upper - 1] == 0x20 || buffer[upper - 1] == 0x09 { upper -= 1 }
        return lower..<upper
    }
}
