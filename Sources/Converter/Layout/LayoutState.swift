import Foundation
import JSONBytes

/// Which rule lives in which list: the memory that lets an unchanged rule keep its list, and so
/// lets an unchanged list keep its bytes, its file name and every device's compiled copy.
///
/// Serialized as versioned JSON with a fixed key order and no dates, so the same layout always
/// gives the same bytes:
/// `{"version":1,"chunkSize":N,"maxLists":N,"selectorsPerRule":N,"lists":[{"id","family","recent","deferred","members":[hex...]}]}`.
/// Members are `StableKey`s in list order.
struct LayoutState: Sendable, Equatable {
    static let currentVersion = 1

    struct List: Sendable, Equatable {
        var id: String
        var family: ListFamily
        /// The family's list of recently added rules.
        var isRecent: Bool
        var members: [StableKey]
        /// Runs in a row this list has republished older bytes (see `DeferredRemoval`).
        var deferredRuns = 0
    }

    /// The knobs the layout was made with: a different value means starting a fresh layout.
    var chunkSize: Int
    var maxLists: Int
    var selectorsPerRule: Int
    var lists: [List]

    func encoded() -> [UInt8] {
        var out: [UInt8] = []
        // 19 bytes a member (`"` + 16 hex digits + `",`), plus each list's header.
        out.reserveCapacity(lists.reduce(128) { $0 + $1.members.count * 19 + 128 })
        out += Array(
            #"{"version":\#(LayoutState.currentVersion),"chunkSize":\#(chunkSize),"maxLists":\#(maxLists),"selectorsPerRule":\#(selectorsPerRule),"lists":["#
                .utf8)
        for (index, list) in lists.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += Array("\n{\"id\":".utf8)
            JSONWriter.appendString(list.id, to: &out)
            out += Array(",\"family\":".utf8)
            JSONWriter.appendString(list.family.rawValue, to: &out)
            out += Array(",\"recent\":\(list.isRecent),\"deferred\":\(list.deferredRuns),\"members\":[".utf8)
            for (position, member) in list.members.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "\""))
                member.appendHex(to: &out)
                out.append(UInt8(ascii: "\""))
            }
            out += Array("]}".utf8)
        }
        out += Array("\n]}\n".utf8)
        return out
    }

    /// Reads a state written by `encoded()`. Anything else is `invalidPreviousLayout`, with what was wrong.
    static func decode(_ bytes: [UInt8]) throws -> LayoutState {
        if let state = CanonicalReader.read(bytes) { return state }
        return try decodeAnyJSON(bytes)
    }

    /// The general reader: any JSON with the right members, and the error messages for everything else.
    static func decodeAnyJSON(_ bytes: [UInt8]) throws -> LayoutState {
        func invalid(_ reason: String) -> ConversionError { .invalidPreviousLayout(reason) }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes))
        } catch {
            throw invalid("not JSON: \(error.localizedDescription)")
        }
        guard let root = object as? [String: Any] else { throw invalid("the top level is not an object") }
        guard let version = root["version"] as? Int else { throw invalid("no \"version\" number") }
        guard version == currentVersion else {
            throw invalid("layout state version \(version), this converter reads version \(currentVersion)")
        }
        guard let chunkSize = root["chunkSize"] as? Int, let maxLists = root["maxLists"] as? Int,
            let selectorsPerRule = root["selectorsPerRule"] as? Int
        else { throw invalid("\"chunkSize\", \"maxLists\" or \"selectorsPerRule\" is missing or not a number") }
        guard let rawLists = root["lists"] as? [[String: Any]] else {
            throw invalid("\"lists\" is not an array of objects")
        }
        var lists: [List] = []
        var seenIDs = Set<String>()
        for (index, raw) in rawLists.enumerated() {
            guard let id = raw["id"] as? String, seenIDs.insert(id).inserted else {
                throw invalid("list \(index) has no id or repeats one")
            }
            guard let familyName = raw["family"] as? String, let family = ListFamily(rawValue: familyName) else {
                throw invalid("list \(id) has an unknown family")
            }
            guard let isRecent = raw["recent"] as? Bool else { throw invalid("list \(id) has no \"recent\" flag") }
            guard let rawMembers = raw["members"] as? [String] else {
                throw invalid("list \(id) has no \"members\" array")
            }
            var members: [StableKey] = []
            members.reserveCapacity(rawMembers.count)
            for text in rawMembers {
                guard let key = StableKey(hex: text) else {
                    throw invalid("list \(id) has a member \"\(text)\" that is not 16 hex digits")
                }
                members.append(key)
            }
            let deferredRuns = raw["deferred"] as? Int ?? 0
            lists.append(List(id: id, family: family, isRecent: isRecent, members: members, deferredRuns: deferredRuns))
        }
        return LayoutState(chunkSize: chunkSize, maxLists: maxLists, selectorsPerRule: selectorsPerRule, lists: lists)
    }
}

/// Reads exactly the bytes `LayoutState.encoded()` writes, a member at a time from the bytes
/// (`JSONSerialization` builds an object for each of the ~100,000 members first). Anything it does
/// not expect (other spacing or key order, escapes, a repeated id, an unknown family) returns nil,
/// and `decodeAnyJSON` then reads the state or names what is wrong, as before.
private struct CanonicalReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    static func read(_ bytes: [UInt8]) -> LayoutState? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = CanonicalReader(bytes: buffer)
            return reader.state()
        }
    }

    mutating func state() -> LayoutState? {
        guard literal(#"{"version":"#), number() == LayoutState.currentVersion,
            literal(#","chunkSize":"#), let chunkSize = number(),
            literal(#","maxLists":"#), let maxLists = number(),
            literal(#","selectorsPerRule":"#), let selectorsPerRule = number(),
            literal(#","lists":["#)
        else { return nil }
        var lists: [LayoutState.List] = []
        var ids = Set<String>()
        while !literal("\n]}\n") {
            if !lists.isEmpty, !literal(",") { return nil }
            guard literal("\n{\"id\":"), let id = string(), ids.insert(id).inserted,
                literal(#","family":"#), let familyName = string(), let family = ListFamily(rawValue: familyName),
                literal(#","recent":"#), let isRecent = boolean(),
                literal(#","deferred":"#), let deferredRuns = number(),
                literal(#","members":["#)
            else { return nil }
            var members: [StableKey] = []
            while !literal("]}") {
                if !members.isEmpty, !literal(",") { return nil }
                guard let key = hexKey() else { return nil }
                members.append(key)
            }
            lists.append(
                LayoutState.List(
                    id: id, family: family, isRecent: isRecent, members: members, deferredRuns: deferredRuns))
        }
        guard index == bytes.count else { return nil }
        return LayoutState(chunkSize: chunkSize, maxLists: maxLists, selectorsPerRule: selectorsPerRule, lists: lists)
    }

    /// Consumes `text` if the bytes continue with it.
    mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        let matches = text.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
        }
        if matches { index += count }
        return matches
    }

    /// A non-negative decimal integer of at most 18 digits.
    mutating func number() -> Int? {
        var value = 0
        let start = index
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, index - start < 18 {
            value = value * 10 + Int(bytes[index] - 0x30)
            index += 1
        }
        guard index > start, index < bytes.count, bytes[index] < 0x30 || bytes[index] > 0x39 else { return nil }
        return value
    }

    mutating func boolean() -> Bool? {
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    /// A string without escapes or control characters (list ids and family names never have them).
    mutating func string() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            if bytes[end] == UInt8(ascii: "\\") || bytes[end] < 0x20 { return nil }
            end += 1
        }
        guard end < bytes.count else { return nil }
        index = end + 1
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// `"` + 16 lowercase hex digits + `"`, as `StableKey.appendHex` writes them.
    mutating func hexKey() -> StableKey? {
        guard bytes.count - index >= 18, bytes[index] == UInt8(ascii: "\""), bytes[index + 17] == UInt8(ascii: "\"")
        else { return nil }
        var value: UInt64 = 0
        for offset in 1...16 {
            let byte = bytes[index + offset]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x61...0x66: digit = byte - 0x57
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        index += 18
        return StableKey(value: value)
    }
}
