@testable import ContentBlockerEngine
import Converter
import Foundation
import Testing
@testable import ListOrigin

/// `ExplanationJSON` writes bytes by hand for speed; Foundation's `JSONEncoder` (sorted keys,
/// unescaped slashes) is the independent reference it must equal, byte for byte.
@Suite struct ExplanationJSONTests {
    struct Envelope: Encodable {
        var manifestSHA256: String
        var provenance: String
        var explanation: Explanation
        var skipped: [SkippedSource]
        enum CodingKeys: String, CodingKey { case manifestSHA256 = "manifest_sha256", provenance, explanation, skipped }
    }

    static func reference(_ answer: ExplainAnswer) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(Envelope(manifestSHA256: answer.manifestSHA256, provenance: answer.provenance,
                                                 explanation: answer.explanation, skipped: answer.skipped)))
    }

    @Test func answersOfTheSmallSetAreWhatJSONEncoderWrites() throws {
        let explain = ExplainTests()
        for (url, page, type) in [("https://ads.example/allowed/x.js", "https://site.example/", ABPRequestType.script),
                                  ("https://tracker.example/t.js", "https://site.example/", .script),
                                  ("https://news.example/story", nil, .document),
                                  ("https://ads.example/x.js", "https://whole.example/", .script),
                                  ("https://csp.example/", nil, .document)] {
            let answer = try explain.answer(url, page: page, type: type)
            #expect(ExplanationJSON.bytes(answer) == (try Self.reference(answer)), "\(url)")
        }
    }

    @Test func everyEscapeIsJSONEncoders() throws {
        var hostile = String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self)
        hostile += "\u{2028}\u{2029}é😀 \\\"/"
        let line = SourceLine(upstream: "up/\"stream\"", line: 7, text: hostile)
        let rule = RuleReference(listID: "l-00", index: 3, action: .cssDisplayNone, json: #"{"a":"\\"}"#, sources: [line, line])
        let explanation = Explanation(url: "https://x.example/\(hostile)", page: hostile, resourceType: .script, loadContext: .childFrame,
                                      loadType: .firstParty, verdict: .blocked, blockingRules: [rule],
                                      exceptions: [Cancellation(exception: rule, cancelled: [rule, rule])], otherActions: [],
                                      pageExceptions: [rule], hidingSelectors: [HidingSelector(selector: hostile, rule: rule)])
        let answer = ExplainAnswer(explanation: explanation, skipped: [SkippedSource(upstream: "u", line: -1, text: hostile, reason: "r\t")],
                                   provenance: hostile, manifestSHA256: "")
        #expect(ExplanationJSON.bytes(answer) == (try Self.reference(answer)))
    }
}
