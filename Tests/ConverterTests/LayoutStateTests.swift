import Foundation
import Testing

@testable import Converter

/// `LayoutState.decode` reads its own canonical bytes with a byte reader and anything else with the
/// general JSON reader: both must give the same state, and errors must stay the general reader's.
@Suite struct LayoutStateTests {
    static let state = LayoutState(
        chunkSize: 30_000, maxLists: 16, selectorsPerRule: 50,
        lists: [
            LayoutState.List(
                id: "network-hosts-00", family: .networkHosts, isRecent: false,
                members: [StableKey(value: 0), StableKey(value: .max), StableKey(value: 0x0123_4567_89ab_cdef)],
                deferredRuns: 2),
            LayoutState.List(
                id: "network-hosts-01", family: .networkHosts, isRecent: true, members: [], deferredRuns: 0),
            LayoutState.List(
                id: "cosmetic-sites-00", family: .cosmeticSites, isRecent: false,
                members: [StableKey(sourceID: "easylist", key: "example.com##.ad")], deferredRuns: 0),
        ])

    @Test func canonicalBytesReadTheSameByBothReaders() throws {
        let bytes = Self.state.encoded()
        #expect(try LayoutState.decode(bytes) == Self.state)
        #expect(try LayoutState.decodeAnyJSON(bytes) == Self.state)
        let empty = LayoutState(chunkSize: 1, maxLists: 1, selectorsPerRule: 1, lists: [])
        #expect(try LayoutState.decode(empty.encoded()) == empty)
    }

    @Test func otherSpellingsFallBackToTheGeneralReader() throws {
        // Re-serialized with other spacing and key order, and a member in uppercase hex.
        let object = try JSONSerialization.jsonObject(with: Data(Self.state.encoded()))
        var text = String(
            decoding: try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]),
            as: UTF8.self)
        text = text.replacingOccurrences(of: "0123456789abcdef", with: "0123456789ABCDEF")
        #expect(try LayoutState.decode(Array(text.utf8)) == Self.state)
    }

    @Test func errorsAreTheGeneralReadersMessages() {
        var bytes = Self.state.encoded()
        // A repeated list id in otherwise canonical bytes.
        let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(
            of: "network-hosts-01", with: "network-hosts-00")
        bytes = Array(text.utf8)
        #expect(throws: ConversionError.invalidPreviousLayout("list 1 has no id or repeats one")) {
            try LayoutState.decode(bytes)
        }
        let truncated = Array(Self.state.encoded().dropLast(3))
        #expect(throws: ConversionError.self) { try LayoutState.decode(truncated) }
        let future = Array(
            String(decoding: Self.state.encoded(), as: UTF8.self).replacingOccurrences(
                of: #""version":1"#, with: #""version":2"#
            ).utf8)
        #expect(throws: ConversionError.invalidPreviousLayout("layout state version 2, this converter reads version 1"))
        { try LayoutState.decode(future) }
    }
}
