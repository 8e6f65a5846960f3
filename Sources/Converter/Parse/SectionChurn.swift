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
            || name.contains("_dimensions")
        {
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

/// Section comments, read as the parser meets them: each filter line takes the churn class of
/// the section it stands in (lines before the first section comment are `.calm`).
enum SectionChurn {
    /// The class a section comment starts, or nil for any other line.
    static func sectionClass(ofLine line: UnsafeBufferPointer<UInt8>) -> ChurnClass? {
        guard line.first == UInt8(ascii: "!"), let section = sectionName(line) else { return nil }
        return ChurnClass.of(section: section)
    }

    /// The class in force after each line of `lines` (ranges into `bytes`), for the lines at
    /// `positions` (ascending): where each parallel piece of parsing starts.
    static func classes(at positions: [Int], lines: [Range<Int>], bytes: [UInt8]) -> [ChurnClass] {
        var out: [ChurnClass] = []
        out.reserveCapacity(positions.count)
        var current = ChurnClass.calm
        var line = 0
        bytes.withUnsafeBufferPointer { buffer in
            for position in positions {
                while line < position {
                    let range = lines[line]
                    if !range.isEmpty, buffer[range.lowerBound] == UInt8(ascii: "!"),
                        let found = sectionClass(ofLine: UnsafeBufferPointer(rebasing: buffer[range]))
                    {
                        current = found
                    }
                    line += 1
                }
                out.append(current)
            }
        }
        return out
    }

    /// `easylist:easylist/x.txt` from `! *** easylist:easylist/x.txt ***`, or nil for other comments.
    private static func sectionName(_ line: UnsafeBufferPointer<UInt8>) -> String? {
        let open = Array("! *** ".utf8)
        let close = Array(" ***".utf8)
        guard line.count > open.count + close.count, line.starts(with: open),
            line[(line.count - close.count)...].elementsEqual(close)
        else { return nil }
        return String(decoding: line[open.count..<(line.count - close.count)], as: UTF8.self)
    }
}
