import Testing
import URLFilterGrammar

/// The byte classes of WebKit's url-filter grammar, checked against their definitions written out
/// byte by byte (the grammar packs them into bit masks).
@Suite struct ByteClassTests {
    private static let operators = Set("$()*+?[\\^{|".utf8)

    @Test func plainAtomsArePrintableASCIIThatIsNoOperator() {
        for byte in UInt8.min...UInt8.max {
            let expected = byte >= 0x20 && byte <= 0x7E && !Self.operators.contains(byte)
            #expect(URLFilterGrammar.isPlainAtom(byte) == expected, "byte \(byte)")
        }
    }

    @Test func onlyStarPlusAndQuestionMarkAreQuantifiers() {
        let quantifiers = (UInt8.min...UInt8.max).filter(URLFilterGrammar.isQuantifier)
        #expect(quantifiers == Array("*+?".utf8).sorted())
    }

    @Test func escapablePunctuationIsPrintableASCIIOtherThanLettersAndDigits() {
        for byte in UInt8.min...UInt8.max {
            let letterOrDigit =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            #expect(
                URLFilterGrammar.isEscapablePunctuation(byte) == (byte > 0x20 && byte < 0x7F && !letterOrDigit),
                "byte \(byte)")
        }
    }

    @Test func lowercasingTouchesOnlyASCIIUppercase() {
        for byte in UInt8.min...UInt8.max {
            let expected = (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
            #expect(URLFilterGrammar.lowercase(byte) == expected, "byte \(byte)")
        }
    }

    @Test func everyRefusalReadsAsWebKitsOwnMessage() {
        for refusal in URLFilterGrammar.Refusal.allCases {
            #expect(!refusal.message.isEmpty && !refusal.message.hasSuffix("."), "\(refusal)")
        }
    }
}
