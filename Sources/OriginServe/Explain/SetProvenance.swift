import ContentBlockerEngine
import Converter
import Foundation

/// The provenance file of one published set, checked against that set: a list's lines are used
/// only when the file was written for the list file the manifest names now (same SHA-256), so a
/// stale file says "no provenance" instead of naming wrong lines.
package struct SetProvenance: RuleProvenance {
    private var reader: ProvenanceReader?
    /// Lists whose recorded hash is the published one.
    private var matching: Set<String>
    /// What the answer says about provenance: `complete`, or why some or all lines are missing.
    package private(set) var status: String
    /// Lines already read, by rule: a page's hiding rules (hundreds, dozens of lines each) are the
    /// same for most answers, and reading them again would be most of a warm answer's time.
    private let cache = SourceCache()

    /// Reads `provenance.txt` beside the manifest of `set`. Never throws: without a usable file,
    /// rules have no sources and `status` says why.
    package static func load(for set: PublishedRuleSet) -> SetProvenance {
        let path = URL(fileURLWithPath: set.directory).appendingPathComponent(ProvenanceFile.fileName).path
        guard let data = FileManager.default.contents(atPath: path) else {
            return SetProvenance(
                reader: nil, matching: [],
                status: "none: the set has no \(ProvenanceFile.fileName) (published before provenance was kept?)")
        }
        return make(fileBytes: Array(data), path: path, listSHA256: set.listSHA256)
    }

    /// Provenance from a file's bytes, trusted for the lists whose hash in `listSHA256` it records.
    package static func make(fileBytes: [UInt8], path: String, listSHA256: [String: String]) -> SetProvenance {
        let reader: ProvenanceReader
        do {
            reader = try ProvenanceReader(bytes: fileBytes)
        } catch {
            return SetProvenance(reader: nil, matching: [], status: "none: \(path): \(error)")
        }
        var matching = Set<String>()
        var stale: [String] = []
        for (id, sha256) in listSHA256 {
            if reader.sha256(ofList: id) == sha256 { matching.insert(id) } else { stale.append(id) }
        }
        let status: String
        if stale.isEmpty {
            status = "complete"
        } else if matching.isEmpty {
            status =
                "none: \(ProvenanceFile.fileName) was written for other list files than the manifest names (stale or damaged)"
        } else {
            status =
                "partial: no lines for \(stale.sorted().joined(separator: ", ")) (its file is not the one \(ProvenanceFile.fileName) was written for)"
        }
        return SetProvenance(reader: reader, matching: matching, status: status)
    }

    /// No provenance, with why.
    package static func none(_ status: String) -> SetProvenance {
        SetProvenance(reader: nil, matching: [], status: status)
    }

    package func sourceLines(listID: String, index: Int) -> [SourceLine] {
        guard matching.contains(listID), let reader else { return [] }
        let key = SourceCache.Key(listID: listID, index: index)
        if let known = cache.lines(key) { return known }
        let lines = reader.lines(list: listID, rule: index) ?? []
        cache.store(lines, for: key)
        return lines
    }

    /// Skipped lines that name the request's host or the page's (or a parent domain of either);
    /// empty when no list of the set has provenance.
    package func skipped(for request: BlockerRequest) -> [SkippedSource] {
        guard let reader, !matching.isEmpty else { return [] }
        let hosts = request.url.host == request.page.host ? [request.url.host] : [request.url.host, request.page.host]
        return reader.skipped(naming: hosts).map {
            SkippedSource(upstream: $0.line.upstream, line: $0.line.line, text: $0.line.text, reason: $0.reason)
        }
    }
}

/// The rules' lines read so far, shared by every copy of one `SetProvenance` (the server answers on
/// several threads). Bounded: past `limit` rules, lines are read each time instead.
private final class SourceCache: @unchecked Sendable {
    struct Key: Hashable {
        var listID: String
        var index: Int
    }

    static let limit = 50_000
    private let lock = NSLock()
    private var entries: [Key: [SourceLine]] = [:]

    func lines(_ key: Key) -> [SourceLine]? {
        lock.lock()
        defer { lock.unlock() }
        return entries[key]
    }

    func store(_ lines: [SourceLine], for key: Key) {
        lock.lock()
        defer { lock.unlock() }
        if entries.count < Self.limit { entries[key] = lines }
    }
}

/// An ABP line the converter skipped, as explain reports it.
package struct SkippedSource: Sendable, Equatable, Codable {
    package var upstream: String
    package var line: Int
    package var text: String
    package var reason: String
}
