import Converter
import Foundation
import OriginTestSupport
import Testing

@testable import ContentBlockerEngine
@testable import ListOrigin
@testable import OriginServe

/// `ExplanationJSON` writes bytes by hand for speed; Foundation's `JSONEncoder` (sorted keys,
/// unescaped slashes) is the independent reference its layout must equal, byte for byte, on real
/// answers (their strings hold no control characters; the escaping is JSONBytesTests').
@Suite struct ExplanationJSONTests {
    struct Envelope: Encodable {
        var manifestSHA256: String
        var provenance: String
        var explanation: Explanation
        var skipped: [SkippedSource]
        enum CodingKeys: String, CodingKey {
            case manifestSHA256 = "manifest_sha256"
            case provenance, explanation, skipped
        }
    }

    static func reference(_ answer: ExplainAnswer) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(
            try encoder.encode(
                Envelope(
                    manifestSHA256: answer.manifestSHA256, provenance: answer.provenance,
                    explanation: answer.explanation, skipped: answer.skipped)))
    }

    @Test func answersOfTheSmallSetAreWhatJSONEncoderWrites() throws {
        let explain = ExplainTests()
        for (url, page, type) in [
            ("https://ads.example/allowed/x.js", "https://site.example/", ABPRequestType.script),
            ("https://tracker.example/t.js", "https://site.example/", .script),
            ("https://news.example/story", nil, .document),
            ("https://ads.example/x.js", "https://whole.example/", .script),
            ("https://csp.example/", nil, .document),
        ] {
            let answer = try explain.answer(url, page: page, type: type)
            #expect(ExplanationJSON.bytes(answer) == (try Self.reference(answer)), "\(url)")
        }
    }
}
