import Foundation
import Testing

@testable import Converter

/// Real EasyList/EasyPrivacy versions: every filter line is accounted for and every emitted rule
/// passes the validator.
@Suite struct RealListsTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private func load(_ relativePath: String) throws -> FilterListSource {
        let url = Self.repository.appendingPathComponent(relativePath)
        let data = try #require(FileManager.default.contents(atPath: url.path), "missing list \(url.path)")
        return FilterListSource(id: url.deletingPathExtension().lastPathComponent, bytes: Array(data))
    }

    private func check(_ paths: [String], minimumConverted: Int) throws {
        let sources = try paths.map(load)
        let (rules, reports, _) = RuleConverter().convert(sources)
        for report in reports {
            let skipped = report.skipped.values.reduce(0) { $0 + $1.count }
            #expect(
                report.converted + skipped == report.rules,
                "\(report.id): \(report.converted) + \(skipped) != \(report.rules)")
            #expect(report.converted >= minimumConverted, "\(report.id) converted only \(report.converted)")
            #expect(report.rules < report.lines)
            for (reason, tally) in report.skipped {
                #expect(SkipReason(rawValue: reason) != nil, "unknown reason \(reason)")
                #expect(tally.examples.count == min(3, tally.count))
            }
        }
        let fixture = RuleConversionFixture(rules: rules)
        let problems = fixture.validatorProblems
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(Set(rules.network.map(\.key)).count == rules.network.count, "network keys must be unique")
        #expect(Set(rules.cosmetic.map(\.key)).count == rules.cosmetic.count, "cosmetic keys must be unique")
    }

    @Test func snapshot2025() throws {
        try check(["snapshot/easylist.txt", "snapshot/easyprivacy.txt"], minimumConverted: 50_000)
    }

    @Test func fixtures20201029() throws {
        try check(
            ["Tests/Fixtures/lists/easylist-2020-10-29.txt", "Tests/Fixtures/lists/easyprivacy-2020-10-29.txt"],
            minimumConverted: 15_000)
    }

    @Test func snapshotSkipsOnlyWhatWebKitCannotExpress() throws {
        let (_, reports, _) = RuleConverter().convert(
            try ["snapshot/easylist.txt", "snapshot/easyprivacy.txt"].map(load))
        let lineProblems = [
            "invalid-utf8", "control-characters", "line-too-long", "regex-unsupported", "invalid-filter",
        ]
        for report in reports {
            for reason in lineProblems {
                #expect(report.skipped[reason] == nil, "\(report.id): \(reason) \(report.skipped[reason]!)")
            }
            #expect(
                (report.skipped["unsupported-option"]?.count ?? 0) <= 5,
                "\(report.id): \(report.skipped["unsupported-option"] ?? .init())")
        }
    }
}

extension RuleConversionFixture {
    init(rules: ConvertedRules) {
        self.rules = rules
        report = ConversionReport.SourceReport(id: "combined", lines: 0, rules: 0, converted: 0, skipped: [:])
    }
}
