import Foundation

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
        out += Array(#"{"version":\#(LayoutState.currentVersion),"chunkSize":\#(chunkSize),"maxLists":\#(maxLists),"selectorsPerRule":\#(selectorsPerRule),"lists":["#.utf8)
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
        guard let rawLists = root["lists"] as? [[String: Any]] else { throw invalid("\"lists\" is not an array of objects") }
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
            guard let rawMembers = raw["members"] as? [String] else { throw invalid("list \(id) has no \"members\" array") }
            var members: [StableKey] = []
            members.reserveCapacity(rawMembers.count)
            for text in rawMembers {
                guard let key = StableKey(hex: text) else { throw invalid("list \(id) has a member \"\(text)\" that is not 16 hex digits") }
                members.append(key)
            }
            let deferredRuns = raw["deferred"] as? Int ?? 0
            lists.append(List(id: id, family: family, isRecent: isRecent, members: members, deferredRuns: deferredRuns))
        }
        return LayoutState(chunkSize: chunkSize, maxLists: maxLists, selectorsPerRule: selectorsPerRule, lists: lists)
    }
}
