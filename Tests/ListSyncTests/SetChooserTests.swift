import Foundation
import ListSync
import Testing

/// A device picks the set of the newest target its WebKit supports, never a newer one.
@Suite struct SetChooserTests {
    static func entry(_ name: String, _ target: String, isDefault: Bool = false) -> SetIndex.Entry {
        SetIndex.Entry(
            name: name, target: target, upstreams: ["easylist"],
            manifest: "https://lists.example/sets/\(name)/manifest.json", isDefault: isDefault)
    }

    static let index = SetIndex(
        defaultSet: "default",
        sets: [
            entry("de", "safari-17"), entry("default", "safari-17", isDefault: true), entry("modern", "safari-26"),
            entry("future", "safari-99"),
        ])

    @Test func theNewestSupportedTargetAndTheDefaultSetAmongEquals() {
        #expect(SetChooser.choose(from: Self.index, for: .safari26)?.name == "modern")
        #expect(
            SetChooser.choose(from: Self.index, for: .safari17)?.name == "default",
            "the default set before another of the same target")
    }

    @Test func neverASetForANewerWebKit() {
        let onlyModern = SetIndex(
            defaultSet: "modern",
            sets: [Self.entry("modern", "safari-26", isDefault: true), Self.entry("future", "safari-99")])
        #expect(SetChooser.choose(from: onlyModern, for: .safari17) == nil)
        #expect(SetChooser.choose(from: onlyModern, for: .safari26)?.name == "modern")
    }

    @Test func versionsMapToTargets() {
        #expect(DeviceTarget.webKitGTK(version: "2.50.0") == .safari26)
        #expect(DeviceTarget.webKitGTK(version: "2.52") == .safari26)
        #expect(DeviceTarget.webKitGTK(version: "2.48.7") == .safari17)
        #expect(DeviceTarget.webKitGTK(version: "3.0") == .safari26)
        #expect(DeviceTarget.webKitGTK(version: "two") == nil)
        #expect(DeviceTarget.appleOS(major: 26) == .safari26)
        #expect(DeviceTarget.appleOS(major: 18) == .safari17)
    }

    @Test func theIndexReadsWhatTheOriginWrites() throws {
        let json =
            #"{"default": "default", "sets": [{"name": "default", "target": "safari-17", "upstreams": ["easylist"], "default": true, "manifest": "https://x/sets/default/manifest.json", "publishedAt": "2026-12-04T22:00:00Z"}]}"#
        let index = try JSONDecoder().decode(SetIndex.self, from: Data(json.utf8))
        #expect(
            index
                == SetIndex(
                    defaultSet: "default",
                    sets: [
                        SetIndex.Entry(
                            name: "default", target: "safari-17", upstreams: ["easylist"],
                            manifest: "https://x/sets/default/manifest.json", isDefault: true)
                    ]))
    }
}
