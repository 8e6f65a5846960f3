import Converter
import Testing

@Suite struct SmokeTests {
    @Test func converterProducesAList() throws {
        let output = try ListConverter().convert([
            FilterListSource(id: "t", bytes: Array("[Adblock Plus 2.0]\n||ads.example^\n".utf8))
        ])
        #expect(!output.lists.isEmpty)
    }
}
