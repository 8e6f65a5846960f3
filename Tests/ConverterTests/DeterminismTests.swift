import Testing

@testable import Converter

/// The same input and previous layout give byte-identical output: no dictionary order, dates or randomness.
@Suite struct DeterminismTests {
    typealias F = LayoutFixture

    /// In one process; ConvertDeterminismTests (OriginEndToEndTests) runs `listserver convert` in separate
    /// processes, each with its own hash seed, and compares every byte written, gzip siblings included.
    @Test func twoRunsGiveIdenticalBytes() throws {
        var rules = F.mixed()
        rules.cosmetic += (0..<200).map { F.except(".x\($0 % 30)", ["e\($0 % 7).org", "f.org"]) }
        let converter = ListConverter()
        let first = try converter.assemble(rules, sourceReports: [], previousLayout: nil)
        let second = try converter.assemble(rules, sourceReports: [], previousLayout: nil)
        #expect(first.lists == second.lists)
        #expect(first.layoutState == second.layoutState)
        let third = try converter.assemble(rules, sourceReports: [], previousLayout: first.layoutState)
        let fourth = try converter.assemble(rules, sourceReports: [], previousLayout: first.layoutState)
        #expect(third.lists == fourth.lists && third.layoutState == fourth.layoutState)
    }
}
