import Foundation
import TestSupport
import Testing

@testable import Converter

/// What a layout emits: cosmetic grouping's exact JSON, hiding lists with their site exceptions, the
/// list and rule limits, and the layout state that carries placement to the next run.
@Suite struct LayoutOutputTests {
    typealias F = LayoutFixture

    @Test func cosmeticGroupingGivesExactJSON() throws {
        var rules = F.noGuards()
        rules.cosmetic = (0..<120).map { F.generic(".g\($0)") }
        rules.cosmetic += [
            F.onSites(".a", ["a.com", "b.com"]), F.onSites(".b", ["c.com"]),
            F.onSites(#"a[href="x"]"#, ["a.com", "b.com"]),
            F.except(".e", ["x.org"]), F.except(".f", ["x.org"]),
        ]
        let lists = try F.layout(rules).lists
        #expect(lists.map(\.id) == ["cosmetic-generic-00", "cosmetic-sites-00"])
        let generic = lists[0].rules.map(F.text)
        #expect(generic.count == 4)
        #expect(
            generic[0] == #"{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":""#
                + (0..<50).map { ".g\($0)" }.joined(separator: ", ") + #""}}"#)
        #expect(
            generic[2] == #"{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":""#
                + (100..<120).map { ".g\($0)" }.joined(separator: ", ") + #""}}"#)
        #expect(
            generic[3]
                == #"{"trigger":{"url-filter":".*","unless-domain":["*x.org"]},"action":{"type":"css-display-none","selector":".e, .f"}}"#
        )
        let sites = lists[1].rules.map(F.text)
        // One rule per site, matched against the document's own URL (the frame's, as in ABP).
        #expect(
            sites == [
                #"{"trigger":{"url-filter":"^[^:]+://+([^:/]+\\.)?a\\.com[/:]","resource-type":["document"]},"action":{"type":"css-display-none","selector":".a, a[href=\"x\"]"}}"#,
                #"{"trigger":{"url-filter":"^[^:]+://+([^:/]+\\.)?b\\.com[/:]","resource-type":["document"]},"action":{"type":"css-display-none","selector":".a, a[href=\"x\"]"}}"#,
                #"{"trigger":{"url-filter":"^[^:]+://+([^:/]+\\.)?c\\.com[/:]","resource-type":["document"]},"action":{"type":"css-display-none","selector":".b"}}"#,
            ])
        let array = JSONText.array(of: lists[1].rules)
        let parsed = try JSONSerialization.jsonObject(with: Data(array)) as? [[String: Any]]
        #expect(parsed?.count == 3)
    }

    /// A site's hiding rules act in its documents wherever they are framed, so an element-hiding
    /// exception for any page must end the site lists (in WebKit it cancels them in that page's frames).
    @Test func siteHidingListsCarryEveryHidingSiteException() throws {
        var rules = F.noGuards()
        rules.cosmetic = [F.onSites(".box", ["news.example"])]
        rules.siteExceptions = [F.site(.elementHiding, "other.org"), F.site(.genericHiding, "other.org")]
        let lists = try F.layout(rules).lists
        #expect(lists.map(\.id) == ["cosmetic-sites-00"])
        let texts = lists[0].rules.map(F.text)
        #expect(
            texts.count == 2 && texts[0].contains("news") && texts[0].contains(#""resource-type":["document"]"#)
                && texts[1].contains("other.org") && texts[1].contains("elementHiding"))
    }

    @Test func listCountAndRuleLimitsHold() throws {
        let rules = F.mixed(hosts: 40_000, paths: 3_000, generics: 2_000, sites: 9_000)
        let result = try F.layout(rules)
        #expect(result.lists.count <= 16)
        for list in result.lists { #expect(list.rules.count <= 30_000 && !list.rules.isEmpty) }
        let big = try F.layout(
            F.mixed(hosts: 200_000, paths: 10, generics: 10, sites: 10), chunkSize: 1_000_000, maxLists: 8)
        // Two lists of at most 150,000 rules; the three lists left are the recent lists' reserve.
        #expect(big.lists.filter { $0.family == .networkHosts }.count == 2)
        for list in big.lists { #expect(list.rules.count <= 150_000) }
        #expect(throws: ConversionError.self) { try F.layout(F.mixed(hosts: 5_000), chunkSize: 1_000, maxLists: 4) }
    }

    @Test func unreadablePreviousStateIsAnActionableError() throws {
        let converter = ListConverter()
        for bad in [
            "not json", #"{"version":99,"lists":[]}"#,
            #"{"version":1,"chunkSize":1,"maxLists":1,"selectorsPerRule":1,"lists":[{"id":"x","family":"nope","recent":false,"members":[]}]}"#,
        ] {
            do {
                _ = try converter.assemble(
                    F.mixed(hosts: 10, paths: 1, generics: 1, sites: 1), sourceReports: [],
                    previousLayout: Array(bad.utf8))
                Issue.record("accepted \(bad)")
            } catch let error as ConversionError {
                guard case .invalidPreviousLayout = error else {
                    Issue.record("wrong error \(error)")
                    continue
                }
                #expect(error.description.contains("remove it"))
            }
        }
    }

    @Test func stateRoundTrips() throws {
        let result = try F.layout(F.mixed())
        let decoded = try LayoutState.decode(result.state.encoded())
        #expect(decoded == result.state)
    }
}
