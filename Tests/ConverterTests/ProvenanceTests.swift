import Testing

@testable import Converter

/// The lines a rule names when several lines make it: joined hiding selectors and the `#@#`
/// exceptions folded into them, read back through the provenance file.
@Suite struct ProvenanceTests {
    @Test func foldedExceptionsAndJoinedSelectorsNameEveryLine() throws {
        let abp = "##.ad\nexample.com#@#.ad\n##.banner\na.example,b.example##.x\nb.example#@#.x\n"
        let output = try ListConverter().convert([FilterListSource(id: "t", bytes: Array(abp.utf8))])
        let reader = try ProvenanceReader(
            bytes: ProvenanceFile.encode(output.provenance, listSHA256: output.lists.map { "hash-\($0.id)" }))
        func lines(_ list: String, _ rule: Int) -> [Int]? { reader.lines(list: list, rule: rule)?.map(\.line) }
        #expect(output.lists.map(\.id) == ["cosmetic-generic-00", "cosmetic-sites-00"])
        // `.banner` is the one selector for every page; `.ad` and the exception that became its `unless-domain` follow.
        #expect(lines("cosmetic-generic-00", 0) == [3])
        #expect(lines("cosmetic-generic-00", 1) == [1, 2])
        // The site rule for a.example: its line, and the exception that took b.example off it.
        #expect(lines("cosmetic-sites-00", 0) == [4, 5])
        #expect(reader.lines(list: "cosmetic-sites-00", rule: 0)?.first?.text == "a.example,b.example##.x")
        #expect(reader.sha256(ofList: "cosmetic-sites-00") == "hash-cosmetic-sites-00")
    }
}
