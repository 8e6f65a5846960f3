import JSONBytes
import Testing

/// The reader's byte-level fast paths: the word-at-a-time string scan and the ASCII-skipping UTF-8
/// check must give exactly the verdicts of the plain byte-by-byte reading.
@Suite struct JSONCursorTests {
    @Test func everySpecialByteOfAWordIsFoundFirst() {
        for position in 0..<8 {
            for byte in 0...255 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                bytes[position] = UInt8(byte)
                let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                let special = byte == 0x22 || byte == 0x5C || byte < 0x20
                let found = JSONCursor.specialBytes(word)
                #expect(
                    found == 0 ? !special : special && found.trailingZeroBitCount >> 3 == position,
                    "\(byte) at \(position)")
            }
        }
        // Several special bytes: the first one wins, whatever follows it.
        let word = Array(#"ab"\"#.utf8) + [0x00, 0x1F, 0x22, 0x5C]
        #expect(
            JSONCursor.specialBytes(word.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) })
                .trailingZeroBitCount >> 3 == 2)
    }

    @Test func stringsAreDecodedWithOrWithoutEscapes() throws {
        let json = Array(#"{"plain":"a\"b\u00e9\ud83d\ude00/"}"#.utf8)
        let (key, value) = try json.withUnsafeBufferPointer { buffer in
            try JSONCursor.reading(buffer) { cursor -> (String, String) in
                #expect(try cursor.beginObject())
                let key = String(decoding: try cursor.key(), as: UTF8.self)
                let value = String(decoding: try cursor.string(), as: UTF8.self)
                #expect(try !cursor.next(closing: UInt8(ascii: "}")))
                return (key, value)
            }
        }
        #expect(key == "plain")
        #expect(value == "a\"bé😀/")
    }

    @Test func everyOneLetterEscapeDecodesToItsByte() throws {
        let json = Array(#"["a\b\f\n\r\t\"\\\/z"]"#.utf8)
        let value = try json.withUnsafeBufferPointer { buffer in
            try JSONCursor.reading(buffer) { cursor -> [UInt8] in
                #expect(try cursor.beginArray())
                return Array(try cursor.string())
            }
        }
        #expect(value == [0x61, 0x08, 0x0C, 0x0A, 0x0D, 0x09, 0x22, 0x5C, 0x2F, 0x7A])
    }

    @Test func utf8ScanAgreesWithTheStrictChecker() {
        let samples: [[UInt8]] = [
            [], Array("plain ascii, longer than one word".utf8), Array("bücher.example — 日本 😀".utf8),
            [0xC3], [0xC3, 0x41], [0xE2, 0x82], [0xE2, 0x82, 0xAC], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xC0, 0x80], [0xFF],
            Array("1234567".utf8) + [0xE2, 0x82, 0xAC] + Array("x".utf8),
            Array("1234567".utf8) + [0xE2, 0x82] + Array("12345678".utf8),
            Array(repeating: 0x61, count: 15) + [0xF0, 0x9F, 0x98, 0x80] + Array(repeating: 0x61, count: 9) + [0x80],
        ]
        for sample in samples {
            let expected = sample.withUnsafeBufferPointer { UTF8Validation.isValidSequence($0) }
            #expect(sample.withUnsafeBufferPointer { UTF8Validation.isValid($0) } == expected, "\(sample)")
        }
    }

    @Test func strictUTF8RejectsOverlongsAndSurrogates() {
        func valid(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer { UTF8Validation.isValidSequence($0) } }
        #expect(valid(Array("bücher 広告 😀".utf8)))
        #expect(!valid([0xC0, 0xAF]))
        #expect(!valid([0xED, 0xA0, 0x80]))
        #expect(!valid([0xF4, 0x90, 0x80, 0x80]))
        #expect(!valid([0xE2, 0x82]))
    }
}
