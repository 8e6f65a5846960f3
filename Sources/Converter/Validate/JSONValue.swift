/// A minimal JSON document model (RFC 8259) for checking generated lists: strings stay as the raw
/// decoded UTF-8 bytes the WebKit parser would see. Depth is bounded so hostile input cannot overflow the stack.
indirect enum JSONValue: Equatable {
    case null
    case bool(Bool)
    case number
    case string([UInt8])
    case array([JSONValue])
    case object([(key: [UInt8], value: JSONValue)])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null), (.number, .number): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The value of `key` in an object (the last one wins, like WebKit's JSON parser), nil otherwise.
    func member(_ key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        let bytes = Array(key.utf8)
        return members.last(where: { $0.key == bytes })?.value
    }
}

struct JSONParseError: Error, Equatable {
    var offset: Int
    var message: String
}

/// Recursive-descent parser over bytes.
struct JSONParser {
    static let maximumDepth = 64

    static func parse(_ bytes: [UInt8]) -> Result<JSONValue, JSONParseError> {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = Cursor(bytes: buffer)
            do {
                parser.skipWhitespace()
                let value = try parser.value(depth: 0)
                parser.skipWhitespace()
                if parser.index != buffer.count { throw JSONParseError(offset: parser.index, message: "trailing bytes after the JSON value") }
                return .success(value)
            } catch let error as JSONParseError {
                return .failure(error)
            } catch {
                return .failure(JSONParseError(offset: parser.index, message: "\(error)"))
            }
        }
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        func fail(_ message: String) -> JSONParseError { JSONParseError(offset: index, message: message) }

        mutating func skipWhitespace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
        }

        mutating func value(depth: Int) throws -> JSONValue {
            guard depth < JSONParser.maximumDepth else { throw fail("nesting deeper than \(JSONParser.maximumDepth)") }
            guard index < bytes.count else { throw fail("unexpected end of input") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [(key: [UInt8], value: JSONValue)] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                while true {
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected an object key") }
                    let key = try string()
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                    index += 1
                    skipWhitespace()
                    members.append((key, try value(depth: depth + 1)))
                    skipWhitespace()
                    guard index < bytes.count else { throw fail("unterminated object") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                    throw fail("expected ',' or '}'")
                }
            case UInt8(ascii: "["):
                index += 1
                var elements: [JSONValue] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                while true {
                    skipWhitespace()
                    elements.append(try value(depth: depth + 1))
                    skipWhitespace()
                    guard index < bytes.count else { throw fail("unterminated array") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                    throw fail("expected ',' or ']'")
                }
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try number()
                return .number
            default:
                throw fail("unexpected byte \(bytes[index])")
            }
        }

        mutating func literal(_ word: StaticString) throws {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw fail("unexpected end of input") }
            let matches = word.withUTF8Buffer { expected in (0..<count).allSatisfy { bytes[index + $0] == expected[$0] } }
            guard matches else { throw fail("invalid literal") }
            index += count
        }

        mutating func number() throws {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            func digits() -> Int {
                let begin = index
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
                return index - begin
            }
            guard index < bytes.count else { throw fail("invalid number") }
            if bytes[index] == UInt8(ascii: "0") { index += 1 } else if digits() == 0 { throw fail("invalid number") }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                if digits() == 0 { throw fail("invalid number") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                if digits() == 0 { throw fail("invalid number") }
            }
            if index == start { throw fail("invalid number") }
        }

        /// Decodes a string starting at the opening quote into UTF-8 bytes.
        mutating func string() throws -> [UInt8] {
            index += 1
            var out: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") { index += 1; return out }
                if byte < 0x20 { throw fail("control character in string") }
                if byte == UInt8(ascii: "\\") {
                    index += 1
                    guard index < bytes.count else { break }
                    switch bytes[index] {
                    case UInt8(ascii: "\""): out.append(0x22)
                    case UInt8(ascii: "\\"): out.append(0x5C)
                    case UInt8(ascii: "/"): out.append(0x2F)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if scalar >= 0xD800, scalar < 0xDC00 {
                            guard index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\\"), bytes[index + 2] == UInt8(ascii: "u") else {
                                throw fail("unpaired surrogate")
                            }
                            index += 2
                            let low = try hex4()
                            guard low >= 0xDC00, low < 0xE000 else { throw fail("unpaired surrogate") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if scalar >= 0xDC00, scalar < 0xE000 {
                            throw fail("unpaired surrogate")
                        }
                        out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                    default:
                        throw fail("invalid escape")
                    }
                    index += 1
                    continue
                }
                out.append(byte)
                index += 1
            }
            throw fail("unterminated string")
        }

        /// Reads the 4 hex digits after `\u`, leaving `index` on the last one.
        mutating func hex4() throws -> UInt32 {
            guard index + 4 < bytes.count else { throw fail("truncated \\u escape") }
            var value: UInt32 = 0
            for offset in 1...4 {
                let byte = bytes[index + offset]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - 0x30)
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - 0x61 + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - 0x41 + 10)
                default: throw fail("invalid \\u escape")
                }
                value = value << 4 | digit
            }
            index += 4
            return value
        }
    }
}
