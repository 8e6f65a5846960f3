import Testing

@testable import Converter

/// Conversion refuses, while it converts, a set whose network blocks and hiding rules cannot fit
/// `maxLists` lists of `chunkSize` rules, and only such a set: duplicates, lines a `$badfilter`
/// cancels and hiding rules a `#@#` exception may cancel are not counted.
@Suite struct LayoutCapacityTests {
    /// 2 lists of 100 rules.
    static let configuration = ConverterConfiguration(chunkSize: 100, maxLists: 2)

    static func source(_ lines: [String]) -> FilterListSource {
        FilterListSource(
            id: "hostile", bytes: Array(("[Adblock Plus 2.0]\n" + lines.joined(separator: "\n") + "\n").utf8))
    }

    static func hosts(_ range: Range<Int>) -> [String] { range.map { "||h\($0).example^" } }

    @Test func blocksBeyondWhatTheListsHoldAreRefusedWithAMessageThatSaysWhy() throws {
        do {
            _ = try ListConverter(configuration: Self.configuration).convert([Self.source(Self.hosts(0..<201))])
            Issue.record("201 distinct blocks were converted for 2 lists of 100 rules")
        } catch let error as ConversionError {
            guard case .layoutImpossible = error else { throw error }
            #expect(
                error.description.contains("at least 201 distinct rules (network blocks and hiding rules)"), "\(error)")
            #expect(error.description.contains("at most 2 lists of 100 rules (200)"), "\(error)")
            #expect(error.description.hasSuffix("raise the chunk size or the list limit"), "\(error)")
        }
    }

    /// A refusal tells the operator what to raise where the value came from: a flag or a config key.
    @Test func refusalsNameTheSettingsWhereTheyWereSet() throws {
        var configuration = Self.configuration
        configuration.settingNames = .init(
            chunkSize: "conversion.chunkSize in config.json", maxLists: "conversion.maxLists in config.json")
        #expect(
            throws: ConversionError.layoutImpossible(
                "the input has at least 201 distinct rules (network blocks and hiding rules) in its first 202 of 202 lines, but at most 2 lists "
                    + "of 100 rules (200) are allowed; raise conversion.chunkSize in config.json or conversion.maxLists in config.json"
            )
        ) {
            _ = try ListConverter(configuration: configuration).convert([Self.source(Self.hosts(0..<201))])
        }
        // More exceptions than a list holds: only the chunk size can help.
        var rules = LayoutFixture.noGuards()
        rules.network =
            [LayoutFixture.block("a.example")] + (0..<3).map { LayoutFixture.exception(nil, key: "@@/e\($0)/") }
        var small = ConverterConfiguration(chunkSize: 3, maxLists: 2)
        small.settingNames.chunkSize = "conversion.chunkSize in config.json"
        #expect(
            throws: ConversionError.layoutImpossible(
                "network-hosts lists must carry 3 exceptions but the chunk size is 3; raise conversion.chunkSize in config.json"
            )
        ) {
            _ = try ListLayout(configuration: small).layOut(rules, previous: nil)
        }
    }

    /// The chunk size is clamped to WebKit's limit in one place, which layout and capacity both read.
    @Test func theChunkSizeIsClampedToWebKitsLimit() {
        #expect(ConverterConfiguration(chunkSize: 1_000_000).rulesPerList == WebKitLimits.rulesPerList)
        #expect(
            LayoutCapacity(ConverterConfiguration(chunkSize: 1_000_000, maxLists: 3)).rules == 3
                * WebKitLimits.rulesPerList)
        #expect(ConverterConfiguration(chunkSize: 7).rulesPerList == 7)
    }

    /// 260 distinct blocks, each of the first 100 written twice, and 70 of them cancelled by
    /// `$badfilter` (some before, some after their target): 190 rules, which 2 lists of 100 hold.
    @Test func duplicatesAndBadfilterTargetsDoNotCountTowardTheLimit() throws {
        let lines =
            Self.hosts(0..<35).map { $0 + "$badfilter" } + Self.hosts(0..<260) + Self.hosts(0..<100)
            + Self.hosts(200..<235).map { $0 + "$BadFilter" }
        let output = try ListConverter(configuration: Self.configuration).convert([Self.source(lines)])
        #expect(output.lists.reduce(0) { $0 + $1.ruleCount } == 190, "\(output.lists.map { ($0.id, $0.ruleCount) })")
        let joined = output.lists.map { String(decoding: $0.json, as: UTF8.self) }.joined()
        #expect(
            !joined.contains("h0\\\\.example") && !joined.contains("h234\\\\.example"),
            "a cancelled block was published")
        #expect(joined.contains("h35\\\\.example") && joined.contains("h259\\\\.example"))
    }

    @Test func hidingRulesBeyondWhatTheListsHoldAreRefused() throws {
        do {
            _ = try ListConverter(configuration: Self.configuration).convert([
                Self.source((0..<201).map { "##.ad-\($0)" })
            ])
            Issue.record("201 distinct hiding rules were converted for 2 lists of 100 rules")
        } catch let error as ConversionError {
            #expect(
                error.description.contains("at least 201 distinct rules (network blocks and hiding rules)"), "\(error)")
        }
    }

    /// 150 site rules for `.ad`, which one `#@#.ad` (after them) cancels, and 100 generic rules: 100 members.
    @Test func hidingRulesAnExceptionMayCancelDoNotCountTowardTheLimit() throws {
        let lines = (0..<150).map { "s\($0).example##.ad" } + (0..<100).map { "##.x-\($0)" } + ["#@#.ad"]
        let output = try ListConverter(configuration: Self.configuration).convert([Self.source(lines)])
        #expect(
            output.report.sources.first?.skipped["cancelled-by-exception"]?.count == 150, "\(output.report.sources)")
        #expect(!output.lists.isEmpty)
    }

    @Test func theBadfilterBoundCountsEveryCaseOfTheWord() {
        #expect(
            LayoutCapacity.badfilterBound(Array("||a^$badfilter\n||b^$BADFILTER,third-party\nbadfilte\n".utf8)) == 2)
        #expect(LayoutCapacity.badfilterBound(Array("badfilter".utf8)) == 1)
        #expect(LayoutCapacity.badfilterBound([]) == 0)
    }
}
