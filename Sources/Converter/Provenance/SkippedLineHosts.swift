/// The host names and page domains a filter line names, so explain can find the skipped lines
/// that concern a URL's host or a page: `||host^…`, `$domain=a|~b` (and `from=`), `a,b##…`.
/// Read from the line's bytes when the provenance file is written, never on the conversion path.
enum SkippedLineHosts {
    static func hosts(in line: ArraySlice<UInt8>) -> [String] {
        var found = Found()
        if let separator = cosmeticSeparator(line) {
            for part in line[line.startIndex..<separator].split(separator: UInt8(ascii: ",")) { add(part, to: &found) }
            return found.hosts
        }
        var body = line
        if body.starts(with: "@@".utf8) { body = body.dropFirst(2) }
        if body.starts(with: "||".utf8) {
            let host = body.dropFirst(2).prefix { !"^/$*:|?".utf8.contains($0) }
            add(host, to: &found)
        }
        if let dollar = body.lastIndex(of: UInt8(ascii: "$")) {
            for option in body[(dollar + 1)...].split(separator: UInt8(ascii: ",")) {
                for name in ["domain=", "from="] where option.starts(with: name.utf8) {
                    for site in option.dropFirst(name.utf8.count).split(separator: UInt8(ascii: "|")) {
                        add(site, to: &found)
                    }
                }
            }
        }
        return found.hosts
    }

    /// Hosts in first-seen order, deduplicated through a set: one line may name tens of thousands
    /// (a `$domain=` list), and a linear search per name made writing its skip record quadratic.
    private struct Found {
        var hosts: [String] = []
        var seen: Set<String> = []
    }

    /// Start of `##`, `#@#`, `#?#`, `#$#`, `#@?#`, `#@$#`, `#%#` (the domain list ends there).
    private static func cosmeticSeparator(_ line: ArraySlice<UInt8>) -> Int? {
        var index = line.startIndex
        while index < line.endIndex - 1 {
            if line[index] == UInt8(ascii: "#"), "#@?$%".utf8.contains(line[index + 1]) { return index }
            if line[index] == UInt8(ascii: "/") || line[index] == UInt8(ascii: "$") { return nil }
            index += 1
        }
        return nil
    }

    /// Adds `raw` lowercased, less a leading `~`, when it reads as a host name.
    private static func add(_ raw: ArraySlice<UInt8>, to found: inout Found) {
        var name = raw
        if name.first == UInt8(ascii: "~") { name = name.dropFirst() }
        guard !name.isEmpty, name.count <= 253,
            name.allSatisfy({
                $0 >= 0x80 || $0 == 0x2D || $0 == 0x2E || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0)
                    || (0x61...0x7A).contains($0)
            })
        else { return }
        let host = String(decoding: name, as: UTF8.self).lowercased()
        if found.seen.insert(host).inserted { found.hosts.append(host) }
    }
}
