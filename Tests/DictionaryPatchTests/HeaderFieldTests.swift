import DictionaryPatch
import DictionaryPatchOrigin
import Foundation
import ListFormat
import Testing

/// RFC 9842's response field we send (the request fields are HTTPServerCore's, tested there).
@Suite struct HeaderFieldTests {
    @Test func useAsDictionaryMatchesLaterVersionsOfTheSameList() {
        #expect(UseAsDictionary.fieldValue(listID: "network-paths-00") == #"match="/network-paths-00.*.json""#)
        #expect(
            UseAsDictionary.fieldValue(listID: "easylist_a", directory: "/lists/")
                == #"match="/lists/easylist_a.*.json""#)
        #expect(UseAsDictionary.fieldValue(listID: "a", directory: "/v:1/") == #"match="/v\\:1/a.*.json""#)
        for bad in ["", "Upper", "a/b", "a\"b", String(repeating: "a", count: 65)] {
            #expect(UseAsDictionary.fieldValue(listID: bad) == nil, "\(bad)")
        }
        #expect(UseAsDictionary.fieldValue(listID: "a", directory: "lists/") == nil)
        #expect(UseAsDictionary.fieldValue(listID: "a", directory: "/a\"b/") == nil)
    }
}

/// Patch file names, the size rule and RFC 9842's window bound.
@Suite struct PatchRulesTests {
    static let from = String(repeating: "0123456789abcdef", count: 4)
    static let to = String(repeating: "fedcba9876543210", count: 4)

    @Test func patchNamesRoundTripAndOnlyOursAreRecognised() throws {
        let name = try #require(PatchFileName(listID: "network-paths-00", fromSHA256: Self.from, toSHA256: Self.to))
        #expect(name.name == "network-paths-00.0123456789ab-fedcba987654.dcz")
        #expect(PatchFileName(parsing: name.name) == name)
        #expect(PatchFileName.isPatchFileName(name.name))
        #expect(PatchFileName(listID: "Network", fromSHA256: Self.from, toSHA256: Self.to) == nil)
        #expect(PatchFileName(listID: "a", fromSHA256: String(Self.from.prefix(12)), toSHA256: Self.to) == nil)
        for other in [
            "network-paths-00.0123456789ab.json", "network-paths-00.0123456789ab.json.gz",
            "network-paths-00.0123456789ab-fedcba987654.dcz.tmp", "network-paths-00.0123456789AB-fedcba987654.dcz",
            "network-paths-00.0123456789a-fedcba987654.dcz", "network-paths-00.0123456789ab-fedcba9876545.dcz",
            "network-paths-00.0123456789abfedcba987654.dcz", ".0123456789ab-fedcba987654.dcz",
            "../x.0123456789ab-fedcba987654.dcz", "manifest.json", "x.0123456789ab-fedcba987654-0123456789ab.dcz",
        ] {
            #expect(!PatchFileName.isPatchFileName(other), "\(other)")
        }
    }

    @Test func aPatchIsWrittenOnlyWhenFourTimesSmallerThanTheGzip() {
        #expect(PatchSizeRule.decide(patchBytes: 50, gzipBytes: 100) == .write)
        #expect(PatchSizeRule.decide(patchBytes: 51, gzipBytes: 100) == .skip(patchBytes: 51, gzipBytes: 100))
        #expect(PatchSizeRule.decide(patchBytes: 2, gzipBytes: 3) == .skip(patchBytes: 2, gzipBytes: 3))
    }

    @Test func theWindowBoundIsRFC9842s() {
        #expect(PatchLimits.windowLimit(dictionaryBytes: 0) == 8 << 20)
        #expect(PatchLimits.windowLimit(dictionaryBytes: 6_710_886) == 8 << 20)
        #expect(PatchLimits.windowLimit(dictionaryBytes: 10 << 20) == 12_800 << 10)
        #expect(PatchLimits.windowLimit(dictionaryBytes: 200 << 20) == 128 << 20)
        #expect(PatchLimits(maxWindowBytes: 8 << 20, outputBytes: 0).windowLog == 23)
        #expect(PatchLimits(maxWindowBytes: (8 << 20) + 1, outputBytes: 0).windowLog == 24)
    }
}
