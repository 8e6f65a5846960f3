import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginConfig
@testable import OriginRefresh

@Suite struct ConfigurationTests {
    private func decode(_ json: String) throws -> Configuration {
        try ConfigurationLoader.decode(Data(json.utf8), file: "test.json")
    }

    private func error(_ json: String) -> ConfigurationError? {
        do {
            _ = try decode(json)
            return nil
        } catch let error as ConfigurationError {
            return error
        } catch {
            Issue.record("unexpected error type: \(error)")
            return nil
        }
    }

    @Test func repositoryConfigMatchesTheDocumentedDefaults() throws {
        let root = Repository.root
        let (configuration, base) = try ConfigurationLoader.load(path: root.appendingPathComponent("config.json").path)
        #expect(configuration == Configuration())
        #expect(base == root.standardizedFileURL.path)
        #expect(
            configuration.upstreams.map(\.url) == [
                "https://easylist.to/easylist/easylist.txt", "https://easylist.to/easylist/easyprivacy.txt",
            ])
    }

    @Test func emptyObjectGivesDefaults() throws {
        #expect(try decode("{}") == Configuration())
    }

    @Test func valuesOverrideDefaults() throws {
        let configuration = try decode(
            #"{"listen":{"port":9090},"conversion":{"chunkSize":1000,"removalGraceRuns":3},"http":{"accessLog":true}}"#)
        #expect(configuration.listen.port == 9090)
        #expect(configuration.listen.address == "127.0.0.1")
        #expect(configuration.conversion.chunkSize == 1000)
        #expect(configuration.conversion.removalGraceRuns == 3)
        #expect(RefreshStages.converterConfiguration(configuration.conversion).removalGraceRuns == 3)
        #expect(RefreshStages.converterConfiguration(configuration.conversion).promotesRecentIntoChangedLists)
        // A layout refusal names the config keys to raise, not `convert`'s flag.
        #expect(
            RefreshStages.converterConfiguration(configuration.conversion).settingNames
                == .init(
                    chunkSize: "conversion.chunkSize in config.json", maxLists: "conversion.maxLists in config.json"))
        #expect(configuration.http.accessLog)
    }

    @Test func unknownKeyIsNamed() {
        let top = error(#"{"lisen":{}}"#)
        #expect(top?.key == "lisen")
        #expect(top?.file == "test.json")
        #expect(top?.description.hasPrefix("test.json: lisen: unknown key") == true)
        let nested = error(#"{"http":{"maxHeaderByte":1}}"#)
        #expect(nested?.key == "http.maxHeaderByte")
        let inArray = error(#"{"upstreams":[{"id":"a","url":"https://a","snapshop":"x"}]}"#)
        #expect(inArray?.key == "upstreams[0].snapshop")
    }

    @Test func wrongTypeIsNamed() {
        let wrong = error(#"{"http":{"maxHeaderBytes":"big"}}"#)
        #expect(wrong?.key == "http.maxHeaderBytes")
        #expect(wrong?.problem == "expected an integer")
        let boolean = error(#"{"http":{"accessLog":1}}"#)
        #expect(boolean?.key == "http.accessLog")
        #expect(boolean?.problem == "expected true or false")
        let upstream = error(#"{"upstreams":[{"id":"a","url":5}]}"#)
        #expect(upstream?.key == "upstreams[0].url")
    }

    @Test func missingRequiredUpstreamFieldIsNamed() {
        let missing = error(#"{"upstreams":[{"id":"a"}]}"#)
        #expect(missing?.key == "upstreams[0].url")
        #expect(missing?.problem.hasPrefix("required key is missing") == true)
    }

    @Test func invalidValuesAreRejected() {
        #expect(error(#"{"listen":{"port":70000}}"#)?.key == "listen.port")
        #expect(error(#"{"conversion":{"chunkSize":0}}"#)?.key == "conversion.chunkSize")
        #expect(error(#"{"conversion":{"chunkSize":150001}}"#)?.key == "conversion.chunkSize")
        #expect(error(#"{"conversion":{"removalGraceRuns":-1}}"#)?.key == "conversion.removalGraceRuns")
        #expect(error(#"{"conversion":{"removalGraceRuns":366}}"#)?.key == "conversion.removalGraceRuns")
        #expect(error(#"{"publish":{"verifyWithWebKit":"maybe"}}"#)?.key == "publish.verifyWithWebKit")
        #expect(error(#"{"upstreams":[]}"#)?.key == "upstreams")
        #expect(error(#"{"upstreams":[{"id":"A B","url":"https://x"}]}"#)?.key == "upstreams[0].id")
        #expect(error(#"{"upstreams":[{"id":"a","url":"ftp://x"}]}"#)?.key == "upstreams[0].url")
    }

    @Test func badJSONAndMissingFileAreClear() {
        let bad = error("{not json")
        #expect(bad?.key == nil)
        #expect(bad?.problem.hasPrefix("not valid JSON") == true)
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(path: "/nonexistent/config.json")
        }
    }
}
