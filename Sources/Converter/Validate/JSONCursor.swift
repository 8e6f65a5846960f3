/// A streaming JSON reader (RFC 8259) over bytes for the list validator: it checks syntax as it goes
/// and decodes only the strings the validator asks for, so an 11 MB list is checked without building
/// a document tree. Depth is bounded so hostile input cannot overflow the stack.
struct JSONCursor {
    struct SyntaxError: Error {
        var offset: Int
        var message: String
    }

    static let maximumDepth = 64

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func fail(_ message: String) -> SyntaxError { SyntaxError(offset: index, message: message) }

    var atEnd: Bool { index >= bytes.count }

    /// The next byte after whitespace, without consuming it (0 at the end).
    mutating func peek() -> UInt8 {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : 0
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    mutating func expect(_ byte: UInt8) throws {
        guard peek() == byte else { throw fail("expected '\(Character(Unicode.Scalar(byte)))'") }
        index += 1
    }

    /// After the first element/member: true when another follows (`,` consumed), false at the closing byte (consumed).
    mutating func next(closing: UInt8) throws -> Bool {
        let byte = peek()
        index += 1
        if byte == UInt8(ascii: ",") { return true }
        if byte == closing { return false }
        index -= 1
        throw fail("expected ',' or '\(Character(Unicode.Scalar(closing)))'")
    }

    /// Consumes `[`; returns false (and consumes `]`) when the array is empty.
    mutating func beginArray() throws -> Bool {
        try expect(UInt8(ascii: "["))
        if peek() == UInt8(ascii: "]") { index += 1; return false }
        return true
    }

    /// Consumes `{`; returns false (and consumes `}`) when the object is empty.
    mutating func beginObject() throws -> Bool {
        try expect(UInt8(ascii: "{"))
        if peek() == UInt8(ascii: "}") { index += 1; return false }
        return true
    }

    /// Reads a member key and its `:` into `key` (decoded).
    mutating func key(into key: inout [UInt8]) throws {
        guard peek() == UInt8(ascii: "\"") else { throw fail("expected an object key") }
        try string(into: &key)
        try expect(UInt8(ascii: ":"))
    }

    /// Decodes the string at the cursor (which must be on its opening quote) into `out`, replacing its contents.
    mutating func string(into out: inout [UInt8]) throws {
        out.removeAll(keepingCapacity: true)
        index += 1
        var runStart = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                index += 1
                return
            }
            if byte < 0x20 { throw fail("control character in string") }
            if byte == UInt8(ascii: "\\") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                try escape(into: &out)
                runStart = index
                continue
            }
            index += 1
        }
        throw fail("unterminated string")
    }

    /// Decodes one escape at `\`, leaving the cursor after it.
    private mutating func escape(into out: inout [UInt8]) throws {
        index += 1
        guard index < bytes.count else { throw fail("unterminated string") }
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
            out.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
        default:
            throw fail("invalid escape")
        }
        index += 1
    }

    /// Reads the 4 hex digits after `\u`, leaving the cursor on the last one.
    private mutating func hex4() throws -> UInt32 {
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

    /// Checks and skips any value.
    mutating func skipValue(depth: Int) throws {
        guard depth < Self.maximumDepth else { throw fail("nesting deeper than \(Self.maximumDepth)") }
        switch peek() {
        case UInt8(ascii: "{"):
            guard try beginObject() else { return }
            var scratch: [UInt8] = []
            repeat {
                try key(into: &scratch)
                try skipValue(depth: depth + 1)
            } while try next(closing: UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            guard try beginArray() else { return }
            repeat { try skipValue(depth: depth + 1) } while try next(closing: UInt8(ascii: "]"))
        case UInt8(ascii: "\""):
            var scratch: [UInt8] = []
            try string(into: &scratch)
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        case 0: throw fail("unexpected end of input")
        default: throw fail("unexpected byte \(bytes[index])")
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("unexpected end of input") }
        let matches = word.withUTF8Buffer { expected in (0..<count).allSatisfy { bytes[index + $0] == expected[$0] } }
        guard matches else { throw fail("invalid literal") }
        index += count
    }

    private mutating func number() throws {
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
    }
}
