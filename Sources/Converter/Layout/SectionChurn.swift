/// How often upstream edits the source section a rule comes from: a churn class known from the
/// first run, used to keep rules of hot sections together in their family's first lists and the
/// rules of calm sections together in the last ones, so that daily removals touch few lists.
///
/// EasyList and EasyPrivacy open each section with a comment such as
/// `! *** easylist:easylist/easylist_specific_hide.txt ***`. On the 2020-10-19…29 dailies, removed
/// rules came almost entirely from a few sections, and a rule's age did not predict its removal:
/// removals per 1,000 rules over ten days were 108 in `easylist_specific_hide`, 2–4 in
/// `adservers`, `general_block`, `thirdparty`, `specific_block` and `easyprivacy_specific`, and
/// 0–1 in the `adult_`, `_international`, `trackingservers`, `general_hide`, popup and
/// dimension sections (see `ChurnClass.of(section:)`).
enum ChurnClass: UInt8, Sendable, Comparable {
    case hot = 0
    case warm = 1
    case calm = 2

    /// The class of a section named like `easylist:easylist/easylist_adservers.txt` (fixed table,
    /// first matching rule wins). Unknown sections are `.calm`, so a list without section
    /// comments lays out exactly as without this table.
    static func of(section: String) -> ChurnClass {
        let name = section.split(separator: "/").last.map(String.init) ?? section
        if name.hasPrefix("adult_") || name.contains("_international") || name.contains("_popup")
            || name.contains("_dimensions") {
            return .calm
        }
        if name.contains("specific_hide") { return .hot }
        for warm in ["adservers", "general_block", "thirdparty", "specific_block", "easyprivacy_specific"]
        where name.contains(warm) {
            return .warm
        }
        return .calm
    }

    static func < (lhs: ChurnClass, rhs: ChurnClass) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The churn class of every filter line of the sources, read in one pass over their bytes.
///
/// Lines are remembered by a 64-bit hash of their bytes, not as `String`s: this runs on every
/// conversion over about 130,000 lines, and a (very unlikely) collision only changes where a fresh
/// layout sorts one rule, never what a list means.
struct SectionChurn: Sendable {
    /// Hashes of the lines of sections that are not `.calm`, by source id; every other line is `.calm`.
    private var classes: [String: HashIndex64] = [:]

    init() {}

    /// Reads section comments and filter lines from each source. Lines are trimmed of spaces,
    /// tabs and `\r`, like the parser's rule keys.
    init(_ sources: [FilterListSource]) {
        for source in sources {
            var lines = HashIndex64()
            var current = ChurnClass.calm
            source.bytes.withUnsafeBufferPointer { bytes in
                var start = 0
                while start < bytes.count {
                    var end = start
                    while end < bytes.count, bytes[end] != 0x0a { end += 1 }
                    var first = start, last = end
                    while first < last, SectionChurn.isBlank(bytes[first]) { first += 1 }
                    while last > first, SectionChurn.isBlank(bytes[last - 1]) { last -= 1 }
                    if first < last {
                        let line = UnsafeBufferPointer(rebasing: bytes[first..<last])
                        if line[0] == UInt8(ascii: "!") {
                            if let section = SectionChurn.sectionName(line) { current = ChurnClass.of(section: section) }
                        } else if current != .calm, line[0] != UInt8(ascii: "[") {
                            lines.update(FNV1a.hash(line), value: Int(current.rawValue))
                        }
                    }
                    start = end + 1
                }
            }
            if !lines.isEmpty { classes[source.id] = lines }
        }
    }

    /// The class of the rule with this layout key: the ABP line, or the line and `#n` when one
    /// line yields several rules.
    func churnClass(sourceID: String, key: String) -> ChurnClass {
        guard let lines = classes[sourceID] else { return .calm }
        var key = key
        let found = key.withUTF8 { bytes -> Int? in
            if let found = lines[FNV1a.hash(bytes)] { return found }
            // `line#n`: look the line up without the suffix.
            var hashIndex = bytes.count - 1
            while hashIndex > 0, bytes[hashIndex] >= UInt8(ascii: "0"), bytes[hashIndex] <= UInt8(ascii: "9") { hashIndex -= 1 }
            guard hashIndex > 0, bytes[hashIndex] == UInt8(ascii: "#") else { return nil }
            return lines[FNV1a.hash(UnsafeBufferPointer(rebasing: bytes[..<hashIndex]))]
        }
        return found.flatMap { ChurnClass(rawValue: UInt8($0)) } ?? .calm
    }


    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0d }

    /// `easylist:easylist/x.txt` from `! *** easylist:easylist/x.txt ***`, or nil for other comments.
    private static func sectionName(_ line: UnsafeBufferPointer<UInt8>) -> String? {
        let open = Array("! *** ".utf8), close = Array(" ***".utf8)
        guard line.count > open.count + close.count, line.starts(with: open),
              line[(line.count - close.count)...].elementsEqual(close) else { return nil }
        return String(decoding: line[open.count..<(line.count - close.count)], as: UTF8.self)
    }
}
