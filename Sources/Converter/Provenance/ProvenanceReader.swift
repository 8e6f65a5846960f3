/// Reads a `ProvenanceFile` lazily: opening it only finds where its records are; a rule's lines,
/// their texts and the skipped lines are parsed when asked for.
public struct ProvenanceReader: Sendable {
    /// A skipped line and the skip reason (a `ConversionReport` reason name).
    public struct Skipped: Sendable, Equatable {
        public var line: SourceLine
        public var reason: String
    }

    /// Why a file cannot be read as provenance.
    public struct FormatError: Error, CustomStringConvertible {
        public var description: String
    }

    private struct ListEntry: Sendable {
        var sha256: String
        /// Index into `lineStarts` of the list's first rule line, and its rule count (nil: kept bytes).
        var firstRule: Int
        var rules: Int?
    }

    private let bytes: [UInt8]
    /// Offsets of every record (line) in `bytes`, plus `bytes.count`.
    private let lineStarts: [Int]
    public let upstreams: [String]
    private let lists: [String: ListEntry]
    /// The `text` records: their origins (sorted) and record indices.
    private let textOrigins: [UInt64]
    private let textRecords: [Int]
    private let skipRecords: Range<Int>

    public init(bytes: [UInt8]) throws {
        self.bytes = bytes
        var starts = [0]
        for (offset, byte) in bytes.enumerated() where byte == 0x0A { starts.append(offset + 1) }
        if starts.last != bytes.count { starts.append(bytes.count) }
        lineStarts = starts
        let recordCount = starts.count - 1
        func record(_ index: Int) -> ArraySlice<UInt8> {
            var end = starts[index + 1]
            if end > starts[index], bytes[end - 1] == 0x0A { end -= 1 }
            return bytes[starts[index]..<end]
        }
        guard recordCount > 0, String(decoding: record(0), as: UTF8.self) == ProvenanceFile.header else {
            throw FormatError(description: "not a provenance file (expected the header \"\(ProvenanceFile.header)\")")
        }
        var index = 1
        var upstreams: [String] = []
        while index < recordCount, record(index).starts(with: "upstream ".utf8) {
            upstreams.append(String(decoding: record(index).dropFirst(9), as: UTF8.self))
            index += 1
        }
        var lists: [String: ListEntry] = [:]
        while index < recordCount, record(index).starts(with: "list ".utf8) {
            let fields = record(index).split(separator: 0x20).map { String(decoding: $0, as: UTF8.self) }
            guard fields.count == 4 else {
                throw FormatError(description: "record \(index + 1): a list record needs id, sha256 and a rule count")
            }
            let rules = fields[3] == "kept" ? nil : Int(fields[3])
            if fields[3] != "kept", rules == nil {
                throw FormatError(description: "record \(index + 1): bad rule count \(fields[3])")
            }
            lists[fields[1]] = ListEntry(sha256: fields[2], firstRule: index + 1, rules: rules)
            index += 1 + (rules ?? 0)
        }
        guard index <= recordCount else { throw FormatError(description: "the file ends inside a list's rules") }
        var origins: [UInt64] = []
        var records: [Int] = []
        while index < recordCount, record(index).starts(with: "text ".utf8) {
            guard let origin = Self.origin(record(index).dropFirst(5).prefix { $0 != 0x20 }) else {
                throw FormatError(description: "record \(index + 1): bad line origin")
            }
            origins.append(origin)
            records.append(index)
            index += 1
        }
        let skipStart = index
        while index < recordCount, record(index).starts(with: "skip ".utf8) { index += 1 }
        guard index == recordCount else { throw FormatError(description: "record \(index + 1): unknown record") }
        self.upstreams = upstreams
        self.lists = lists
        textOrigins = origins
        textRecords = records
        skipRecords = skipStart..<index
    }

    /// The hash the list's lines were recorded for (nil: the file does not know the list).
    public func sha256(ofList id: String) -> String? { lists[id]?.sha256 }

    /// The lines rule `index` of list `id` came from; nil when the file has no lines for it.
    public func lines(list id: String, rule index: Int) -> [SourceLine]? {
        guard let entry = lists[id], let rules = entry.rules, index >= 0, index < rules else { return nil }
        return record(entry.firstRule + index).split(separator: 0x20).compactMap { field in
            guard let origin = Self.origin(field) else { return nil }
            return line(origin, text: text(of: origin))
        }
    }

    /// Skipped lines naming one of `hosts` or a parent domain of one (`||example.com^` names
    /// `ads.example.com`), in file order.
    public func skipped(naming hosts: [String]) -> [Skipped] {
        let wanted = hosts.map { $0.lowercased() }.filter { !$0.isEmpty }
        guard !wanted.isEmpty else { return [] }
        var found: [Skipped] = []
        for index in skipRecords {
            let fields = record(index).split(separator: 0x20, maxSplits: 4, omittingEmptySubsequences: false)
            guard fields.count >= 4, let origin = Self.origin(fields[1]) else { continue }
            let names = fields[3].split(separator: UInt8(ascii: ",")).map { String(decoding: $0, as: UTF8.self) }
            guard names.contains(where: { name in wanted.contains { $0 == name || $0.hasSuffix("." + name) } }) else {
                continue
            }
            let text = fields.count > 4 ? String(decoding: fields[4], as: UTF8.self) : ""
            found.append(Skipped(line: line(origin, text: text), reason: String(decoding: fields[2], as: UTF8.self)))
        }
        return found
    }

    private func record(_ index: Int) -> ArraySlice<UInt8> {
        var end = lineStarts[index + 1]
        if end > lineStarts[index], bytes[end - 1] == 0x0A { end -= 1 }
        return bytes[lineStarts[index]..<end]
    }

    private func text(of origin: UInt64) -> String {
        var low = 0
        var high = textOrigins.count
        while low < high {
            let middle = (low + high) / 2
            if textOrigins[middle] < origin { low = middle + 1 } else { high = middle }
        }
        guard low < textOrigins.count, textOrigins[low] == origin else { return "" }
        let fields = record(textRecords[low]).split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
        return fields.count > 2 ? String(decoding: fields[2], as: UTF8.self) : ""
    }

    private func line(_ origin: UInt64, text: String) -> SourceLine {
        let source = Int(origin >> 32)
        return SourceLine(
            upstream: source < upstreams.count ? upstreams[source] : "input \(source)", line: Int(origin & 0xFFFF_FFFF),
            text: text)
    }

    /// `<u>:<line>` as a packed `LineOrigin`.
    private static func origin(_ field: ArraySlice<UInt8>) -> UInt64? {
        guard let colon = field.firstIndex(of: UInt8(ascii: ":")),
            let source = UInt64(String(decoding: field[field.startIndex..<colon], as: UTF8.self)),
            let line = UInt64(String(decoding: field[(colon + 1)...], as: UTF8.self))
        else { return nil }
        return LineOrigin(source: Int(source), line: Int(line)).packed
    }
}
