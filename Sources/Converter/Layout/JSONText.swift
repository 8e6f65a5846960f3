/// The list array layout writes around rule objects; strings go through `JSONWriter`, the one escaper.
enum JSONText {
    /// A WebKit list: a JSON array of rule objects, one rule a line so a diff of two versions reads well.
    static func array(of rules: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(rules.reduce(4) { $0 + $1.count + 2 })
        out.append(UInt8(ascii: "["))
        for (index, rule) in rules.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(0x0a)
            out += rule
        }
        out += [0x0a, UInt8(ascii: "]"), 0x0a]
        return out
    }
}
