/// Splits a JSON array of rule objects into the byte ranges of its elements, so an answer can quote
/// each rule exactly as published. Assumes valid JSON (the list is parsed in full as well).
enum RuleListSplitter {
    static func elementRanges(_ bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var depth = 0
        var inString = false
        var escaped = false
        var start = -1
        for (offset, byte) in bytes.enumerated() {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if depth == 1 && start < 0 { start = offset }
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 1 && start >= 0 {
                    ranges.append(start..<(offset + 1))
                    start = -1
                }
            default:
                break
            }
        }
        return ranges
    }
}
