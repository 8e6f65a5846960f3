/// A streaming JSON reader (RFC 8259) over bytes, the reading side of `JSONWriter`: it checks syntax
/// as it goes and hands out strings without building a document tree, so the converter's validator
/// checks an 11 MB list, and the decision engine loads one, without copying it. Depth is bounded so
/// hostile input cannot overflow the stack. The steps a list walk runs per rule are `@inlinable`,
/// because they are the validator's hot path and it lives in another module.
public struct JSONCursor {
    public struct SyntaxError: Error {
        public var offset: Int
        public var message: String
    }

    public static let maximumDepth = 64

    public let bytes: UnsafeBufferPointer<UInt8>
    /// Where strings with escapes are decoded. At least as long as `bytes`, because decoding never
    /// lengthens a string, so writes into it need no bounds checks beyond the input's own.
    @usableFromInline let decoded: UnsafeMutableBufferPointer<UInt8>
    public var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>, decoded: UnsafeMutableBufferPointer<UInt8>) {
        self.bytes = bytes
        self.decoded = decoded
    }

    /// Runs `body` with a cursor at the start of `bytes`; the decode buffer lives as long as the call.
    public static func reading<R>(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (inout JSONCursor) throws -> R) rethrows
        -> R
    {
        // Large buffers are mmapped, so only the pages escaped strings touch are ever faulted in.
        let decoded = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        defer { decoded.deallocate() }
        var cursor = JSONCursor(bytes, decoded: decoded)
        return try body(&cursor)
    }

    public func fail(_ message: String) -> SyntaxError { SyntaxError(offset: index, message: message) }

    public var atEnd: Bool { index >= bytes.count }

    /// The next byte after whitespace, without consuming it (0 at the end).
    @inlinable @inline(__always) public mutating func peek() -> UInt8 {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : 0
    }

    @inlinable @inline(__always) public mutating func skipWhitespace() {
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    // The structural steps below run a few times per rule: inlined, with their errors built out of line.

    @inlinable @inline(__always) public mutating func expect(_ byte: UInt8) throws {
        guard peek() == byte else { throw expected(byte) }
        index += 1
    }

    @usableFromInline @inline(never) func expected(_ byte: UInt8) -> SyntaxError {
        fail("expected '\(Character(Unicode.Scalar(byte)))'")
    }

    /// After the first element/member: true when another follows (`,` consumed), false at the closing byte (consumed).
    @inlinable @inline(__always) public mutating func next(closing: UInt8) throws -> Bool {
        let byte = peek()
        if byte == UInt8(ascii: ",") {
            index += 1
            return true
        }
        if byte == closing {
            index += 1
            return false
        }
        throw expectedSeparator(closing)
    }

    @usableFromInline @inline(never) func expectedSeparator(_ closing: UInt8) -> SyntaxError {
        fail("expected ',' or '\(Character(Unicode.Scalar(closing)))'")
    }

    /// Consumes `[`; returns false (and consumes `]`) when the array is empty.
    @inlinable @inline(__always) public mutating func beginArray() throws -> Bool {
        try expect(UInt8(ascii: "["))
        if peek() == UInt8(ascii: "]") {
            index += 1
            return false
        }
        return true
    }

    /// Consumes `{`; returns false (and consumes `}`) when the object is empty.
    @inlinable @inline(__always) public mutating func beginObject() throws -> Bool {
        try expect(UInt8(ascii: "{"))
        if peek() == UInt8(ascii: "}") {
            index += 1
            return false
        }
        return true
    }

    /// Reads a member key and its `:`; the key's decoded bytes, valid until the next string is read.
    @inlinable public mutating func key() throws -> UnsafeBufferPointer<UInt8> {
        guard peek() == UInt8(ascii: "\"") else { throw fail("expected an object key") }
        let key = try string()
        try expect(UInt8(ascii: ":"))
        return key
    }

    /// Reads the string at the cursor (which must be on its opening quote) and returns its decoded bytes:
    /// a view of the input when it has no escapes (no copy), else of the decode buffer. Either is valid
    /// only until the next string is read.
    @inlinable public mutating func string() throws -> UnsafeBufferPointer<UInt8> {
        index += 1
        let start = index
        let count = bytes.count
        while true {
            while index + 8 <= count {
                let special = Self.specialBytes(word(at: index))
                if special != 0 {
                    index += special.trailingZeroBitCount >> 3
                    break
                }
                index += 8
            }
            guard index < count else { throw fail("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)])
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            if byte < 0x20 { throw fail("control character in string") }
            index += 1
        }
    }

    /// The 8 input bytes at `offset` as one word, the first in the lowest bits (the caller checks `offset + 8 <= count`).
    @inlinable @inline(__always) func word(at offset: Int) -> UInt64 {
        UInt64(
            littleEndian: UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The bytes of `word` that end a plain run inside a string (`"`, `\` or a control byte below 0x20),
    /// as their high bits; 0 when there is none. The lowest set bit is exactly the first such byte (the
    /// classic has-zero-byte / has-less-than tests err only in bytes above a true hit), so no byte is
    /// ever skipped wrongly.
    @inlinable @inline(__always) public static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        let control = (word &- ones &* 0x20) & ~word
        return (zeroQuote | zeroBackslash | control) & 0x8080_8080_8080_8080
    }

    /// The rest of a string whose first escape is at the cursor: the plain run before it is copied, then
    /// everything is decoded into `decoded`.
    @usableFromInline mutating func escapedString(from start: Int) throws -> UnsafeBufferPointer<UInt8> {
        let out = decoded.baseAddress!
        var length = index - start
        out.update(from: bytes.baseAddress! + start, count: length)
        let count = bytes.count
        while true {
            while index + 8 <= count {
                let run = word(at: index)
                // All 8 bytes are stored, but only the plain ones before the first special byte count. In
                // bounds: `length <= index - start` and the buffer is as long as the input.
                UnsafeMutableRawPointer(out + length).storeBytes(of: run.littleEndian, as: UInt64.self)
                let special = Self.specialBytes(run)
                if special != 0 {
                    let plain = special.trailingZeroBitCount >> 3
                    length += plain
                    index += plain
                    break
                }
                length += 8
                index += 8
            }
            guard index < count else { throw fail("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return UnsafeBufferPointer(start: out, count: length)
            }
            if byte < 0x20 { throw fail("control character in string") }
            if byte == UInt8(ascii: "\\") {
                // `\\`, `\"` and `\/` (the usual ones) inline; the rest, and every error, through `escape`.
                if index + 1 < count {
                    let escaped = bytes[index + 1]
                    if escaped == UInt8(ascii: "\\") || escaped == UInt8(ascii: "\"") || escaped == UInt8(ascii: "/") {
                        out[length] = escaped
                        length += 1
                        index += 2
                        continue
                    }
                }
                length += try escape(into: out + length)
                continue
            }
            out[length] = byte
            length += 1
            index += 1
        }
    }

    /// Decodes one escape at `\` into `out`, leaving the cursor after it; the number of bytes written.
    private mutating func escape(into out: UnsafeMutablePointer<UInt8>) throws -> Int {
        index += 1
        guard index < bytes.count else { throw fail("unterminated string") }
        let written: Int
        if let byte = Self.singleByteEscape(bytes[index]) {
            out[0] = byte
            written = 1
        } else if bytes[index] == UInt8(ascii: "u") {
            var scalar = try hex4()
            if scalar >= 0xD800, scalar < 0xDC00 {
                guard index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\\"),
                    bytes[index + 2] == UInt8(ascii: "u")
                else {
                    throw fail("unpaired surrogate")
                }
                index += 2
                let low = try hex4()
                guard low >= 0xDC00, low < 0xE000 else { throw fail("unpaired surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00, scalar < 0xE000 {
                throw fail("unpaired surrogate")
            }
            written = Self.encodeUTF8(scalar, into: out)
        } else {
            throw fail("invalid escape")
        }
        index += 1
        return written
    }

    /// The byte a one-letter escape stands for (`n` of `\n` → 0x0A); nil for `u` and for invalid letters.
    private static func singleByteEscape(_ letter: UInt8) -> UInt8? {
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): letter
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }

    /// UTF-8 of a scalar value (never a surrogate here); at most 4 bytes, never more than its `\u` form.
    @inline(__always) private static func encodeUTF8(_ scalar: UInt32, into out: UnsafeMutablePointer<UInt8>) -> Int {
        switch scalar {
        case ..<0x80:
            out[0] = UInt8(scalar)
            return 1
        case ..<0x800:
            out[0] = UInt8(0xC0 | scalar >> 6)
            out[1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case ..<0x10000:
            out[0] = UInt8(0xE0 | scalar >> 12)
            out[1] = UInt8(0x80 | scalar >> 6 & 0x3F)
            out[2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            out[0] = UInt8(0xF0 | scalar >> 18)
            out[1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            out[2] = UInt8(0x80 | scalar >> 6 & 0x3F)
            out[3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
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
    public mutating func skipValue(depth: Int) throws {
        guard depth < Self.maximumDepth else { throw fail("nesting deeper than \(Self.maximumDepth)") }
        switch peek() {
        case UInt8(ascii: "{"):
            guard try beginObject() else { return }
            repeat {
                _ = try key()
                try skipValue(depth: depth + 1)
            } while try next(closing: UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            guard try beginArray() else { return }
            repeat { try skipValue(depth: depth + 1) } while try next(closing: UInt8(ascii: "]"))
        case UInt8(ascii: "\""): _ = try string()
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
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            if digits() == 0 { throw fail("invalid number") }
        }
    }
}
