import DictionaryPatch
import DictionaryPatchOrigin
import Foundation
import Testing

/// RFC 9842's request fields as a CDN or client may send them, and the response field we send.
@Suite struct HeaderFieldTests {
    /// SHA-256 of "abc", and its sf-binary form (from RFC 6234's test vector).
    static let digest = SHA256Digest.bytes(hex: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")!
    static let field = ":ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=:"

    @Test func availableDictionaryParsesAByteSequence() throws {
        #expect(AvailableDictionary.fieldValue(sha256: Self.digest) == Self.field)
        for value in [Self.field, "  \(Self.field) ", "\t\(Self.field)", ":ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0:",
                      "\(Self.field);a=1", "\(Self.field);a;b=?0;c=\"x\\\"y\";d=tok/en;e=-1.5;f=:AA==:"] {
            #expect(try AvailableDictionary.sha256(fromFieldValue: value) == Self.digest, "\(value)")
        }
    }

    @Test func availableDictionaryRefusesWhatIsNotOneSHA256() {
        let cases: [(String, AvailableDictionary.Problem)] = [
            ("", .notAByteSequence),
            ("ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=", .notAByteSequence),
            (":ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=", .notAByteSequence),
            ("\"\(Self.field)\"", .notAByteSequence),
            ("\(Self.field), \(Self.field)", .notAByteSequence),
            ("\(Self.field);A=1", .notAByteSequence),
            ("\(Self.field);a=", .notAByteSequence),
            ("\(Self.field) x", .notAByteSequence),
            (":ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0=:", .invalidBase64),
            (":ungW v48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=:", .invalidBase64),
            (":a:", .invalidBase64),
            (":AAECAwQFBgcICQoLDA0ODw==:", .wrongLength(16)),
            ("::", .wrongLength(0)),
        ]
        for (value, problem) in cases {
            #expect(throws: problem, "\(value)") { try AvailableDictionary.sha256(fromFieldValue: value) }
        }
    }

    @Test func acceptEncodingHonoursQValues() {
        let accepted = ["dcz", "gzip, dcz", "gzip,dcz,br", "DCZ", "dcz;q=0.5", "dcz ; Q=0.001", "dcz;q=1.000", "*",
                        "gzip;q=0.5, *;q=0.1", ", ,dcz", "gzip;q=1.5, dcz"]
        let refused = ["gzip", "", "dcz;q=0", "dcz;q=0.000", "dcz; q=0.0", "*;q=0", "dcz;q=0, *", "dcz;q=1.5",
                       "dcz;q=0.0001", "dcz;level=1", "dczx", "dc z", "gzip;q=1, identity"]
        for value in accepted { #expect(AcceptEncoding.acceptsDCZ(value), "\(value)") }
        for value in refused { #expect(!AcceptEncoding.acceptsDCZ(value), "\(value)") }
        #expect(!AcceptEncoding.acceptsDCZ(nil))
        #expect(AcceptEncoding.quality(of: "gzip", inFieldValue: "gzip;q=0.25, dcz") == 0.25)
    }

    @Test func aRequestGetsThePatchOnlyWithBothFields() {
        #expect(DictionaryNegotiation.offeredDictionary(acceptEncoding: "gzip, dcz", availableDictionary: Self.field) == Self.digest)
        #expect(DictionaryNegotiation.offeredDictionary(acceptEncoding: "gzip", availableDictionary: Self.field) == nil)
        #expect(DictionaryNegotiation.offeredDictionary(acceptEncoding: "dcz", availableDictionary: nil) == nil)
        #expect(DictionaryNegotiation.offeredDictionary(acceptEncoding: "dcz", availableDictionary: ":AA==:") == nil)
    }

    @Test func useAsDictionaryMatchesLaterVersionsOfTheSameList() {
        #expect(UseAsDictionary.fieldValue(listID: "network-paths-00") == #"match="/network-paths-00.*.json""#)
        #expect(UseAsDictionary.fieldValue(listID: "easylist_a", directory: "/lists/") == #"match="/lists/easylist_a.*.json""#)
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
        for other in ["network-paths-00.0123456789ab.json", "network-paths-00.0123456789ab.json.gz",
                      "network-paths-00.0123456789ab-fedcba987654.dcz.tmp", "network-paths-00.0123456789AB-fedcba987654.dcz",
                      "network-paths-00.0123456789a-fedcba987654.dcz", "network-paths-00.0123456789ab-fedcba9876545.dcz",
                      "network-paths-00.0123456789abfedcba987654.dcz", ".0123456789ab-fedcba987654.dcz",
                      "../x.0123456789ab-fedcba987654.dcz", "manifest.json", "x.0123456789ab-fedcba987654-0123456789ab.dcz"] {
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
