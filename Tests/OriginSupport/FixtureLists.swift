import Converter
import Foundation
import ListFormat
import TestSupport
import Testing

@testable import OriginConfig
@testable import OriginRefresh
@testable import OriginStore

/// Filter lists and converter outputs the origin's tests publish.
package enum FixtureLists {
    /// The first `lines` lines of a real EasyList day (header included).
    package static func easylist(lines: Int, day: String = "2020-10-19") throws -> [UInt8] {
        let path = Repository.fixtures.appendingPathComponent("lists/easylist-\(day).txt").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return Array(
            (text.split(separator: "\n", omittingEmptySubsequences: false).prefix(lines).joined(separator: "\n") + "\n")
                .utf8)
    }

    /// A list of `rules` rules whose url-filters are random hex, so gzip cannot shrink it much.
    package static func incompressibleList(_ id: String, rules: Int) -> RuleList {
        var json = Array("[".utf8)
        for index in 0..<rules {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            let noise = (0..<16).map { _ in String(format: "%08x", UInt32.random(in: 0...UInt32.max)) }.joined()
            json += Array(#"{"trigger":{"url-filter":"\#(noise)"},"action":{"type":"block"}}"#.utf8)
        }
        json.append(UInt8(ascii: "]"))
        return RuleList(id: id, json: json, ruleCount: rules)
    }

    package static func conversionOutput(_ lists: [RuleList]) -> ConversionOutput {
        ConversionOutput(lists: lists, report: ConversionReport(sources: [], lists: []), layoutState: Array("{}".utf8))
    }

    package static func conversionOutput(_ lists: [(String, String)]) -> ConversionOutput {
        let rules = lists.map { RuleList(id: $0.0, json: Array($0.1.utf8), ruleCount: 1) }
        return ConversionOutput(
            lists: rules, report: ConversionReport(sources: [], lists: []), layoutState: Array("{}".utf8))
    }

    /// A list of `count` distinct block rules; `changed` indices carry `version` in their pattern.
    package static func patchList(_ count: Int, version: Int, changed: Set<Int>) -> String {
        let rules = (0..<count).map { index in
            let tag = changed.contains(index) ? "v\(version)-" : ""
            return
                #"{"trigger":{"url-filter":"^https?://\#(tag)ads\#(index * 7919 % 100_003)\\.example/"},"action":{"type":"block"}}"#
        }
        return "[" + rules.joined(separator: ",") + "]"
    }

    package static func patchVersion(_ number: Int) -> ConversionOutput {
        conversionOutput([
            ("net", patchList(2_000, version: number, changed: [number, 500 + number, 1_500 + number])),
            ("css", patchList(300, version: 0, changed: [])),
        ])
    }

    /// The entry as the server holds it, with its patches (the published bytes leave them out).
    package static func manifestEntry(_ outcome: Publisher.Outcome, _ id: String) throws -> Manifest.Entry {
        try #require(outcome.published.manifest.lists.first { $0.id == id })
    }
}
