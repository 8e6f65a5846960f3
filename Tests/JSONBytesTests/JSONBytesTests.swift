import Foundation
import JSONBytes
import Testing

/// The package's one JSON string escaping and the document writer on top of it. Foundation's
/// `JSONSerialization` is the independent reader every output must parse back with.
@Suite struct JSONBytesTests {
    static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        JSONWriter.appendString(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The rule, spelled out per byte: two-character escapes for `"`, `\`, LF, TAB and CR;
    /// `\u00XX` (lowercase) for the other control bytes and DEL; everything else as it is.
    @Test(arguments: [
        ("plain", #""plain""#), ("a\"b", #""a\"b""#), ("a\\b", #""a\\b""#), ("a/b", #""a/b""#),
        ("\n\t\r", #""\n\t\r""#), ("\u{0}", #""\u0000""#), ("\u{8}", #""\u0008""#), ("\u{C}", #""\u000c""#),
        ("\u{1B}", #""\u001b""#), ("\u{1F}", #""\u001f""#), ("\u{7F}", #""\u007f""#), (" ~", #"" ~""#),
        ("é😀\u{2028}\u{2029}", "\"é😀\u{2028}\u{2029}\""), ("", #""""#),
    ])
    func eachByteIsEscapedByTheOneRule(_ input: String, _ expected: String) {
        #expect(Self.quoted(input) == expected)
    }

    /// Every ASCII byte, one at a time and all in one string (the bulk-copy path), parses back to itself.
    @Test func everyASCIIByteParsesBackToItself() throws {
        let all = String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self) + "é😀\u{2028}"
        for text in (0..<0x80).map({ String(UnicodeScalar(UInt8($0))) }) + [all] {
            let json = Array("[\(Self.quoted(text))]".utf8)
            let parsed = try JSONSerialization.jsonObject(with: Data(json)) as? [String]
            #expect(parsed == [text], "\(Array(text.utf8))")
        }
        // A collection without contiguous storage takes the byte-by-byte path to the same bytes.
        var sliced: [UInt8] = []
        JSONWriter.appendString(all.utf8.lazy.map { $0 }, to: &sliced)
        #expect(String(decoding: sliced, as: UTF8.self) == Self.quoted(all))
    }

    @Test func documentsKeepTheCallersKeyOrderAndEscapeKeysAndValues() throws {
        var document = JSONDocument()
        document.object { top in
            top.key("z") { $0.integer(-3) }
            top.key("a\"") { $0.string("x\u{7F}\n") }
            top.key("list") {
                $0.array([1, 2]) { out, value in out.object { $0.key("n") { $0.integer(value) } } }
            }
            top.key("empty") { $0.array([Int]()) { $0.integer($1) } }
            top.key("nested") { $0.object { _ in } }
        }
        let text = String(decoding: document.bytes, as: UTF8.self)
        #expect(text == #"{"z":-3,"a\"":"x\u007f\n","list":[{"n":1},{"n":2}],"empty":[],"nested":{}}"#)
        let parsed = try JSONSerialization.jsonObject(with: Data(document.bytes)) as? [String: Any]
        #expect(parsed?["a\""] as? String == "x\u{7F}\n")
    }

    @Test func literalsKeysAndStringArrays() {
        var out: [UInt8] = []
        JSONWriter.appendLiteral("{", to: &out)
        JSONWriter.appendKey("if-domain", to: &out)
        JSONWriter.appendStringArray(["*a.example", "b\\c"], to: &out)
        JSONWriter.appendLiteral("}", to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"{"if-domain":["*a.example","b\\c"]}"#)
    }
}
