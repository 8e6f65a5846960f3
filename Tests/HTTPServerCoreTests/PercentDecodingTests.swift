import HTTPServerCore
import Testing

/// The one percent-decoder, as request targets and `/explain`'s query use it.
@Suite struct PercentDecodingTests {
    private func decoded(_ text: String, plus: PercentDecoding.Plus = .literal) -> String? {
        PercentDecoding.decode(Array(text.utf8), plus: plus).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func escapesOfEitherCaseAreDecodedOnce() {
        #expect(decoded("a%2Fb%2fc") == "a/b/c")
        #expect(decoded("%41%7a%7E") == "Az~")
        #expect(decoded("%2525") == "%25")
        #expect(decoded("plain") == "plain")
        #expect(decoded("") == "")
        #expect(PercentDecoding.decode(Array("%00%ff".utf8)) == [0x00, 0xFF])
    }

    @Test func plusIsASpaceOnlyInAFormQuery() {
        #expect(decoded("a+b%2B") == "a+b+")
        #expect(decoded("a+b%2B", plus: .space) == "a b+")
    }

    @Test func aBrokenEscapeIsRefused() {
        for broken in ["%", "%4", "a%zz", "%g0", "%G0", "%0g", "x%2"] {
            #expect(decoded(broken) == nil, "\(broken)")
        }
    }

    /// Slices decode by their own indices, as the query parser hands them over.
    @Test func aSliceIsDecodedFromItsOwnStart() {
        let bytes = Array("url=a%20b".utf8)
        #expect(PercentDecoding.decode(bytes[4...]).map { String(decoding: $0, as: UTF8.self) } == "a b")
    }
}
