import Foundation
import ListFormat
import ManifestSigning
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginConfig

/// The keys `config.json` accepts are the fields of `Configuration`, section by section: a field
/// added without a reader (or a reader for a key that is no field) fails here. The loader's own
/// unknown-key message is the list of what each section's reader asked for.
@Suite struct ConfigurationKeysTests {
    /// The keys the loader allows in one section, from its unknown-key error for `probe`.
    static func allowedKeys(_ probe: String) throws -> [String] {
        do {
            _ = try ConfigurationLoader.decode(Data(probe.utf8), file: "keys.json")
        } catch let error as ConfigurationError {
            let marker = "unknown key (allowed here: "
            guard error.key?.hasSuffix("zzUnknown") == true, let range = error.problem.range(of: marker) else {
                Issue.record("\(probe): not an unknown-key error: \(error)")
                return []
            }
            return error.problem[range.upperBound...].dropLast().components(separatedBy: ", ")
        }
        Issue.record("\(probe): an unknown key was accepted")
        return []
    }

    static func fields(_ value: Any) -> [String] {
        Mirror(reflecting: value).children.compactMap(\.label)
    }

    @Test func everyFieldIsAKeyAndEveryKeyAField() throws {
        let key = try ManifestSigningKey.generate().publicKey.base64
        let follow = #""manifest":"https://primary.example/manifest.json","trustedKeys":["\#(key)"]"#
        let defaults = Configuration()
        let sections: [(String, String, Any)] = [
            ("top level", #"{"zzUnknown":1}"#, defaults),
            ("listen", #"{"listen":{"zzUnknown":1}}"#, defaults.listen),
            (
                "upstreams[]", #"{"upstreams":[{"id":"a","url":"https://a.example/","zzUnknown":1}]}"#,
                defaults.upstreams[0]
            ),
            ("refresh", #"{"refresh":{"zzUnknown":1}}"#, defaults.refresh),
            ("fetch", #"{"fetch":{"zzUnknown":1}}"#, defaults.fetch),
            ("conversion", #"{"conversion":{"zzUnknown":1}}"#, defaults.conversion),
            ("publish", #"{"publish":{"zzUnknown":1}}"#, defaults.publish),
            ("http", #"{"http":{"zzUnknown":1}}"#, defaults.http),
            ("follow", #"{"follow":{\#(follow),"zzUnknown":1}}"#, Configuration.Follow(manifest: "", trustedKeys: [])),
            (
                "sets[]", #"{"sets":[{"name":"a","upstreams":["easylist"],"zzUnknown":1}]}"#,
                ListSetDefinition(name: "a", upstreams: [])
            ),
        ]
        for (name, probe, value) in sections {
            let allowed = try Self.allowedKeys(probe)
            let fields = Self.fields(value)
            #expect(
                Set(fields).subtracting(allowed).isEmpty,
                "\(name): fields config.json cannot set: \(Set(fields).subtracting(allowed).sorted())")
            #expect(
                Set(allowed).subtracting(fields).isEmpty,
                "\(name): keys that set no field: \(Set(allowed).subtracting(fields).sorted())")
        }
    }

    /// Every key the configuration reference (docs/configuration.md) documents is one the loader allows, and back.
    @Test func theReferenceDocumentsEveryKey() throws {
        let root = Repository.root
        let reference = try String(contentsOf: root.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        let documented = Set(
            reference.components(separatedBy: "\n").compactMap { line -> String? in
                guard line.hasPrefix("| `"), let end = line.dropFirst(3).firstIndex(of: "`") else { return nil }
                return String(line[line.index(line.startIndex, offsetBy: 3)..<end])
            })
        let defaults = Configuration()
        var keys: [String] = []
        for (section, value) in [
            ("listen", defaults.listen as Any), ("upstreams[]", defaults.upstreams[0]), ("refresh", defaults.refresh),
            ("fetch", defaults.fetch), ("conversion", defaults.conversion), ("publish", defaults.publish),
            ("http", defaults.http), ("follow", Configuration.Follow(manifest: "", trustedKeys: [])),
            ("sets[]", ListSetDefinition(name: "", upstreams: [])),
        ] {
            keys += Self.fields(value).map { "\(section).\($0)" }
        }
        keys += ["publicDir", "stateDir", "unprotectedSites"]
        let missing = keys.filter { !documented.contains($0) }
        #expect(missing.isEmpty, "keys docs/configuration.md does not document: \(missing)")
    }
}
