import JSONBytes
import TestSupport
import Testing

@testable import Converter

/// Runs rule conversion on literal list text (or bytes) and exposes the results for exact assertions.
struct RuleConversionFixture {
    var rules: ConvertedRules
    var report: ConversionReport.SourceReport

    init(_ text: String) { self.init(bytes: Array(text.utf8)) }

    init(bytes: [UInt8]) {
        let result = RuleConverter().convert([FilterListSource(id: "test", bytes: bytes)])
        rules = result.rules
        report = result.reports[0]
    }

    /// Serialized network rules, as text, in emission order.
    var networkJSON: [String] { rules.network.map { String(decoding: $0.json, as: UTF8.self) } }

    /// Skip counts by reason name.
    var skips: [String: Int] { report.skipped.mapValues(\.count) }

    var skippedTotal: Int { report.skipped.values.reduce(0) { $0 + $1.count } }

    /// Every emitted rule (carve-outs and site exceptions included) in one list, as layout would emit it.
    var allRulesAsList: [UInt8] {
        var objects: [[UInt8]] = []
        for rule in rules.network {
            objects.append(rule.json)
            if let carveOut = rule.carveOut { objects.append(carveOut) }
        }
        objects.append(contentsOf: rules.siteExceptions.map(\.json))
        for selector in rules.cosmetic {
            var json = Array(#"{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":"#.utf8)
            JSONWriter.appendString(selector.selector, to: &json)
            json.append(contentsOf: "}}".utf8)
            objects.append(json)
        }
        var list: [UInt8] = [UInt8(ascii: "[")]
        for (index, object) in objects.enumerated() {
            if index > 0 { list.append(UInt8(ascii: ",")) }
            list.append(contentsOf: object)
        }
        list.append(UInt8(ascii: "]"))
        return list
    }

    /// Validator problems over every emitted rule (an empty output counts as clean).
    var validatorProblems: [WebKitListValidator.Problem] {
        if rules.network.isEmpty && rules.siteExceptions.isEmpty && rules.cosmetic.isEmpty { return [] }
        return WebKitListValidator().problems(in: allRulesAsList)
    }
}

@Suite struct ParserTests {
    @Test func commentsHeadersAndBlankLinesAreNotRules() {
        let fixture = RuleConversionFixture(
            "[Adblock Plus 2.0]\n! Title: test\n\n   \n# hosts-style comment\n||ads.example^\n")
        #expect(fixture.report.lines == 6)
        #expect(fixture.report.rules == 1)
        #expect(fixture.report.converted == 1)
        #expect(fixture.skippedTotal == 0)
    }

    @Test func crlfLoneCRAndBOMAreLineEndsNotContent() {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("||a.example^\r\n||b.example^\r||c.example^".utf8)
        let fixture = RuleConversionFixture(bytes: bytes)
        #expect(fixture.report.lines == 3)
        #expect(fixture.rules.network.map(\.key) == ["||a.example^", "||b.example^", "||c.example^"])
        #expect(fixture.rules.network.map(\.anchorHost) == ["a.example", "b.example", "c.example"])
    }

    @Test func surroundingWhitespaceIsTrimmed() {
        let fixture = RuleConversionFixture("  ||ads.example^ \t\n")
        #expect(fixture.rules.network.map(\.key) == ["||ads.example^"])
    }

    @Test func emptyInputHasNoRules() {
        let fixture = RuleConversionFixture(bytes: [])
        #expect(fixture.report.lines == 0)
        #expect(fixture.report.rules == 0)
        #expect(fixture.rules.network.isEmpty && fixture.rules.cosmetic.isEmpty)
    }

    @Test func missingHeaderIsFine() {
        let fixture = RuleConversionFixture("||ads.example^\n##.banner\n")
        #expect(fixture.report.rules == 2)
        #expect(fixture.report.converted == 2)
    }

    @Test func invalidUTF8IsSkippedByName() {
        let bytes =
            Array("||ok.example^\n".utf8) + [0x7C, 0x7C, 0xC3, 0x28, 0x2E, 0x65, 0x78, 0x0A]
            + Array("||ed.example/\u{E9}^\n".utf8)
        let fixture = RuleConversionFixture(bytes: bytes)
        #expect(fixture.skips == ["invalid-utf8": 1])
        #expect(fixture.report.converted == 2)
    }

    @Test func controlCharactersAreSkipped() {
        let fixture = RuleConversionFixture(bytes: Array("||a.example^\u{0}x\n||b\u{7}.example^\n".utf8))
        #expect(fixture.skips == ["control-characters": 2])
        #expect(fixture.rules.network.isEmpty)
    }

    @Test func hundredKilobyteLineIsSkippedAsTooLong() {
        let long = "/" + String(repeating: "a", count: 100_000)
        let fixture = RuleConversionFixture("\(long)\n||ads.example^\n")
        #expect(fixture.skips == ["line-too-long": 1])
        #expect(fixture.report.converted == 1)
        #expect(fixture.report.skipped["line-too-long"]?.examples.first?.utf8.count == 200)
    }

    @Test func binaryGarbageNeverCrashesAndIsAccountedFor() {
        var generator = SeededGenerator(seed: 7)
        let bytes = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let fixture = RuleConversionFixture(bytes: bytes)
        #expect(fixture.report.rules == fixture.report.converted + fixture.skippedTotal)
        #expect(fixture.skippedTotal > 0)
        #expect(fixture.validatorProblems.isEmpty)
    }

    @Test func duplicateLinesAreConvertedOnce() {
        let fixture = RuleConversionFixture("||ads.example^\n||ads.example^\n##.ad\n##.ad\n")
        #expect(fixture.skips == ["duplicate": 2])
        #expect(fixture.rules.network.count == 1)
        #expect(fixture.rules.cosmetic.count == 1)
    }

    @Test func duplicatesAcrossSourcesKeepTheFirst() {
        let (rules, reports, _) = RuleConverter().convert([
            FilterListSource(id: "one", bytes: Array("||ads.example^\n".utf8)),
            FilterListSource(id: "two", bytes: Array("||ads.example^\n||other.example^\n".utf8)),
        ])
        #expect(rules.network.map(\.sourceID) == ["one", "two"])
        #expect(reports.map(\.converted) == [1, 1])
        #expect(reports[1].skipped["duplicate"]?.count == 1)
    }

    /// The per-line work runs in chunks of `RuleConverter.linesPerChunk` lines on several cores:
    /// duplicates, `$badfilter` and `#@#` exceptions that span chunks must still act in input
    /// order, and the report's examples must be the first lines in input order.
    @Test func filtersActAcrossParallelChunks() {
        let chunk = RuleConverter.linesPerChunk
        var lines = (0..<(2 * chunk + 10)).map { "||host\($0).example^" }
        lines[chunk + 5] = "||host3.example^"  // duplicate of line 3, in the second chunk
        lines[2 * chunk + 1] = "||host7.example^$badfilter"  // cancels line 7, two chunks earlier
        lines[2 * chunk + 2] = "#@#.banner"  // folds the first line of the other source
        let (rules, reports, _) = RuleConverter().convert([
            FilterListSource(id: "one", bytes: Array(("##.banner\n" + lines.joined(separator: "\n")).utf8)),
            FilterListSource(id: "two", bytes: Array("||host9.example^\n||later.example^\n".utf8)),
        ])
        #expect(reports[0].skipped["duplicate"] == ConversionReport.SkipTally(count: 1, examples: ["||host3.example^"]))
        #expect(reports[0].skipped["badfilter"]?.count == 1)
        #expect(
            reports[0].skipped["cancelled-by-badfilter"]
                == ConversionReport.SkipTally(count: 1, examples: ["||host7.example^"]))
        #expect(
            reports[0].skipped["cancelled-by-exception"]
                == ConversionReport.SkipTally(count: 1, examples: ["##.banner"]))
        #expect(reports[1].skipped["duplicate"] == ConversionReport.SkipTally(count: 1, examples: ["||host9.example^"]))
        #expect(rules.cosmetic.isEmpty)
        // Lines 0..<2·chunk+10 minus the duplicate, the cancelled one and the two directive lines, then `later`.
        #expect(rules.network.count == 2 * chunk + 10 - 4 + 1)
        #expect(rules.network.first?.key == "||host0.example^")
        #expect(rules.network.last?.key == "||later.example^")
        #expect(
            rules.network.map(\.key)
                == rules.network.map(\.key).sorted { lhs, rhs in
                    func order(_ key: String) -> Int {
                        key == "||later.example^" ? .max : Int(key.dropFirst(6).prefix { $0.isNumber })!
                    }
                    return order(lhs) < order(rhs)
                })
    }

    @Test func optionSeparatorIsTheLastDollarStartingAnOption() {
        let body = Array("/ads$/$script".utf8)
        #expect(NetworkFilterParser.optionSeparator(in: body[...]) == 6)
        #expect(NetworkFilterParser.optionSeparator(in: Array("/ads$/".utf8)[...]) == nil)
        #expect(NetworkFilterParser.optionSeparator(in: Array("/cost$".utf8)[...]) == nil)
    }

    @Test func cosmeticSeparatorIsFoundOnlyAfterADomainList() {
        func separator(_ text: String) -> Int? {
            Array(text.utf8).withUnsafeBufferPointer { LineClassifier.cosmeticSeparatorStart($0) }
        }
        #expect(separator("##.ad") == 0)
        #expect(separator("a.com,b.com#@#.ad") == 11)
        #expect(separator("a.com#?#.ad") == 5)
        #expect(separator("||a.com/#ad") == nil)
        #expect(separator("/page##anchor") == nil)
    }
}
