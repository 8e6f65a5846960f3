import Foundation
import Testing

@testable import OriginConfig

/// `sets` in `config.json`: strict, each mistake named by its key; no key means one set of every upstream.
@Suite struct SetsConfigurationTests {
    static let upstreams =
        #""upstreams": [{"id": "easylist", "url": "https://a.example/el.txt"}, {"id": "easyprivacy", "url": "https://a.example/ep.txt"}]"#

    static func decode(_ sets: String) throws -> Configuration {
        try ConfigurationLoader.decode(Data("{\(upstreams), \"sets\": \(sets)}".utf8), file: "config.json")
    }

    static func problem(_ sets: String) -> String {
        do {
            _ = try decode(sets)
            return "accepted"
        } catch {
            return "\(error)"
        }
    }

    @Test func withoutSetsOneDefaultSetOfEveryUpstreamAtTheOldestTarget() throws {
        let configuration = try ConfigurationLoader.decode(Data("{\(Self.upstreams)}".utf8), file: "config.json")
        #expect(
            configuration.publishedSets == [
                ListSetDefinition(name: "default", upstreams: ["easylist", "easyprivacy"], target: "safari-17")
            ])
        let resolved = ResolvedConfiguration(configuration: configuration, baseDirectory: "/srv")
        #expect(
            resolved.publicDirectory(of: configuration.defaultSet) == "/srv/public",
            "the single set is published where it always was")
        #expect(resolved.stateDirectory(of: configuration.defaultSet) == "/srv/state")
        #expect(resolved.otherSets.isEmpty)
    }

    @Test func theSetNamedDefaultElseTheFirstIsServedAtTheRoot() throws {
        let named = try Self.decode(
            #"[{"name": "modern", "upstreams": ["easylist"], "target": "safari-26"}, {"name": "default", "upstreams": ["easyprivacy"]}]"#
        )
        #expect(named.defaultSet.name == "default")
        #expect(named.defaultSet.target == "safari-17")
        let first = try Self.decode(
            #"[{"name": "modern", "upstreams": ["easylist"], "target": "safari-26"}, {"name": "de", "upstreams": ["easyprivacy"]}]"#
        )
        #expect(first.defaultSet.name == "modern")
        let resolved = ResolvedConfiguration(configuration: first, baseDirectory: "/srv")
        #expect(resolved.otherSets.map(\.name) == ["de"])
        #expect(resolved.publicDirectory(of: resolved.otherSets[0]) == "/srv/public/sets/de")
        #expect(resolved.stateDirectory(of: resolved.otherSets[0]) == "/srv/state/sets/de")
    }

    @Test func mistakesNameTheirKey() {
        #expect(
            Self.problem(#"[{"name": "a", "upstreams": ["easylist"]}, {"name": "a", "upstreams": ["easylist"]}]"#)
                == #"config.json: sets[1].name: "a" appears twice"#)
        #expect(
            Self.problem(#"[{"name": "a", "upstreams": ["easylist", "nope"]}]"#)
                == #"config.json: sets[0].upstreams: "nope" is no upstream id (configured: easylist, easyprivacy)"#)
        #expect(
            Self.problem(#"[{"name": "a", "upstreams": ["easylist"], "target": "safari-99"}]"#)
                == #"config.json: sets[0].target: must be one of "safari-17", "safari-26""#)
        #expect(
            Self.problem(#"[{"name": "A b", "upstreams": ["easylist"]}]"#).hasPrefix(
                "config.json: sets[0].name: must be lowercase"))
        #expect(
            Self.problem(#"[{"name": "a", "upstreams": []}]"#)
                == "config.json: sets[0].upstreams: needs at least one upstream id")
        #expect(Self.problem(#"[]"#).hasPrefix("config.json: sets: needs at least one set"))
        #expect(Self.problem(#"[{"upstreams": ["easylist"]}]"#) == "config.json: sets[0].name: required key is missing")
    }
}
