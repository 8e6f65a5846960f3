/// The provenance file beside a published set: text, one record a line, deterministic (the same
/// conversion gives the same bytes).
///
///     listserver-provenance 1
///     upstream <id>                                   one per input, in input order (index 0, 1, …)
///     list <id> <sha256> <rules>                      then one line per rule: `<u>:<line> …` (empty: none)
///     list <id> <sha256> kept                         a list that kept earlier bytes: no rule lines
///     text <u>:<line> <text>                          every line a rule names, by origin
///     skip <u>:<line> <reason> <host,host|-> <text>   every skipped line but duplicates, by origin
///
/// `<sha256>` is the list file's hash: a reader trusts a list's lines only while the published
/// file has that hash. Line numbers are 1-based in the upstream file as fetched.
public enum ProvenanceFile {
    public static let fileName = "provenance.txt"
    static let header = "listserver-provenance 1"

    /// The file for `provenance`, keyed to `listSHA256` (the hash of each list, in list order).
    public static func encode(_ provenance: ConversionProvenance, listSHA256: [String]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(provenance.sources.reduce(0) { $0 + $1.bytes.count } * 2)
        func line(_ text: String) {
            out.append(contentsOf: text.utf8)
            out.append(0x0A)
        }
        line(header)
        for source in provenance.sources { line("upstream \(source.id)") }
        var named: [UInt64] = []
        for (index, list) in provenance.lists.enumerated() {
            let hash = index < listSHA256.count ? listSHA256[index] : "-"
            guard let origins = list.origins else {
                line("list \(list.id) \(hash) kept")
                continue
            }
            line("list \(list.id) \(hash) \(origins.ruleCount)")
            for rule in 0..<origins.ruleCount {
                var first = true
                func put(_ origin: LineOrigin) {
                    if !first { out.append(0x20) }
                    first = false
                    append(origin, to: &out)
                    named.append(origin.packed)
                }
                for origin in origins.lines(ofRule: rule) {
                    put(origin)
                    for merged in provenance.merged[origin] ?? [] { put(merged) }
                }
                out.append(0x0A)
            }
        }
        let ranges = provenance.sources.map { FilterLineReader.lineRanges(in: $0.bytes) }
        func text(_ origin: LineOrigin) -> ArraySlice<UInt8> {
            guard origin.source < ranges.count, origin.line >= 1, origin.line <= ranges[origin.source].count else {
                return []
            }
            return provenance.sources[origin.source].bytes[ranges[origin.source][origin.line - 1]]
        }
        named.sort()
        var previous: UInt64?
        for packed in named where packed != previous {
            previous = packed
            let origin = LineOrigin(packed: packed)
            out.append(contentsOf: "text ".utf8)
            append(origin, to: &out)
            out.append(0x20)
            out.append(contentsOf: text(origin))
            out.append(0x0A)
        }
        for skipped in provenance.skipped.sorted(by: { $0.origin < $1.origin }) {
            let lineText = text(skipped.origin)
            let hosts = SkippedLineHosts.hosts(in: lineText)
            out.append(contentsOf: "skip ".utf8)
            append(skipped.origin, to: &out)
            out.append(
                contentsOf: " \(skipped.reason.rawValue) \(hosts.isEmpty ? "-" : hosts.joined(separator: ",")) ".utf8)
            out.append(contentsOf: lineText)
            out.append(0x0A)
        }
        return out
    }

    /// `<source>:<line>` in decimal, without building a string.
    private static func append(_ origin: LineOrigin, to out: inout [UInt8]) {
        appendDecimal(origin.source, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDecimal(origin.line, to: &out)
    }

    private static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        )
        var count = 0
        var rest = max(0, value)
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0 && count < 10
            for index in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[index]) }
        }
    }
}
