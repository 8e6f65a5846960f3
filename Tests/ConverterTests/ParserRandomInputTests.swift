import TestSupport
import Testing

@testable import Converter

/// A bounded, seeded stand-in for the libFuzzer run so CI covers it: 20,000 inputs built from ABP
/// syntax fragments and random bytes. Every input must be fully accounted for and validator-clean.
@Suite struct ParserRandomInputTests {
    static let fragments: [String] = [
        "||", "|", "^", "*", "$", "@@", "##", "#@#", "#?#", "#$#", ",", "~", "|", "/", "\\", "domain=", "third-party",
        "script",
        "image", "subdocument", "document", "xmlhttprequest", "popup", "object", "important", "badfilter", "match-case",
        "elemhide", "generichide", "csp=x", "redirect=noop.js", "ads", "a.example", "sub.a.example", "Bücher.example",
        "google.*",
        "\\d", "\\w", "\\b", "\\s", "\\1", "(", ")", "(?:", "(?=", "[", "]", "[^", "{2}", "-", ".", "?", "+", "é", "広告",
        "\"",
        ":has(", ":-abp-contains(", ":not(", "div", ".ad", "#ad", "[href^=\"x\"]", " ", "\t", "\r", "\n", "%", "'", ">",
    ]

    @Test func twentyThousandSeededInputs() {
        var generator = SeededGenerator(seed: 0x5EED)
        let validator = WebKitListValidator()
        var failures: [String] = []
        var emitted = 0
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                for _ in 0..<Int.random(in: 1...12, using: &generator) {
                    if Int.random(in: 0..<10, using: &generator) == 0 {
                        bytes.append(UInt8.random(in: 0...255, using: &generator))
                    } else {
                        bytes.append(contentsOf: Self.fragments.randomElement(using: &generator)!.utf8)
                    }
                }
                bytes.append(0x0A)
            }
            let fixture = RuleConversionFixture(bytes: bytes)
            if fixture.report.converted + fixture.skippedTotal != fixture.report.rules {
                failures.append("accounting: \(String(decoding: bytes, as: UTF8.self))")
            }
            let problems =
                fixture.rules.network.isEmpty && fixture.rules.cosmetic.isEmpty && fixture.rules.siteExceptions.isEmpty
                ? [] : validator.problems(in: fixture.allRulesAsList)
            if !problems.isEmpty { failures.append("\(problems.prefix(2)): \(String(decoding: bytes, as: UTF8.self))") }
            emitted += fixture.rules.network.count + fixture.rules.cosmetic.count
            if failures.count >= 5 { break }
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(emitted > 1_000, "the generator should exercise conversion, not only skips")
    }
}
