import Converter
import Dispatch
import Foundation

/// One list of a set, named by its content so a CDN can cache it forever.
struct PlannedList: Sendable, Equatable {
    var id: String
    var rules: Int
    /// Lowercase hex SHA-256 of `identity`; the manifest's `sha256`.
    var sha256: String
    /// `<id>.<sha256[:12]>.json`.
    var fileName: String
    /// The JSON array bytes exactly as WebKit compiles them.
    var identity: [UInt8]
    /// Deterministic gzip of `identity`; nil when the target already holds `gzipName`, so it is reused.
    var gzip: [UInt8]?

    var gzipName: String { fileName + ".gz" }
}

/// Everything one publish writes, computed without touching the target directory except to ask
/// which gzip siblings already exist. Pure, deterministic bytes: the same conversion output always
/// gives the same names, manifest bytes (and so the same ETag on every origin).
struct PublishPlan: Sendable {
    static let manifestName = "manifest.json"
    static let reportName = "report.json"
    static let layoutName = "layout.json"
    /// Length of the hash prefix in file names: 48 bits, plenty to tell one day's lists apart.
    static let hashPrefixLength = 12

    var lists: [PlannedList]
    /// `{"format":1,"lists":[{"id","file","sha256","rules"}]}`.
    var manifest: [UInt8]
    var manifestSHA256: String
    /// The conversion report as sorted-key JSON.
    var report: [UInt8]
    /// The converter's opaque layout state, published beside the manifest as `layout.json`.
    var layoutState: [UInt8]

    /// Every file name the manifest makes reachable (identity and gzip).
    var fileNames: [String] { lists.flatMap { [$0.fileName, $0.gzipName] } }

    /// Plans the set for a conversion output.
    /// - Parameter gzipExists: tells whether the target already holds a gzip file of that name, so
    ///   the (slow) compression is skipped for lists that did not change.
    static func make(from output: ConversionOutput, gzipExists: (String) -> Bool = { _ in false }) throws -> PublishPlan {
        try make(lists: output.lists, report: output.report, layoutState: output.layoutState, gzipExists: gzipExists)
    }

    /// Plans the set for explicit lists (the publish gate may swap in a list's previous version).
    static func make(lists: [RuleList], report: ConversionReport, layoutState: [UInt8],
                     gzipExists: (String) -> Bool = { _ in false }) throws -> PublishPlan {
        guard !lists.isEmpty else { throw PublishError.emptySet }
        var seen = Set<String>()
        var planned: [PlannedList] = []
        planned.reserveCapacity(lists.count)
        for list in lists {
            guard isSafeListID(list.id) else { throw PublishError.invalidListID(list.id) }
            guard seen.insert(list.id).inserted else { throw PublishError.duplicateListID(list.id) }
        }
        let hashes = onEveryCore(lists.count) { SHA256.hex(lists[$0].json) }
        for (list, hash) in zip(lists, hashes) {
            let name = "\(list.id).\(hash.prefix(hashPrefixLength)).json"
            planned.append(PlannedList(id: list.id, rules: list.ruleCount, sha256: hash, fileName: name, identity: list.json, gzip: nil))
        }
        try compressMissing(&planned, gzipExists: gzipExists)
        let manifest = manifestBytes(planned)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let reportBytes: [UInt8]
        do {
            reportBytes = Array(try encoder.encode(report))
        } catch {
            throw PublishError.reportEncoding("\(error)")
        }
        return PublishPlan(lists: planned, manifest: manifest, manifestSHA256: SHA256.hex(manifest),
                           report: reportBytes, layoutState: layoutState)
    }

    /// The manifest in a fixed key order with no whitespace or timestamps.
    static func manifestBytes(_ lists: [PlannedList]) -> [UInt8] {
        var out = Array(#"{"format":1,"lists":["#.utf8)
        for (index, list) in lists.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            // Every value is checked to need no JSON escaping (safe id, hex hash, safe file name).
            out += Array(#"{"id":""#.utf8) + Array(list.id.utf8)
            out += Array(#"","file":""#.utf8) + Array(list.fileName.utf8)
            out += Array(#"","sha256":""#.utf8) + Array(list.sha256.utf8)
            out += Array(#"","rules":"#.utf8) + Array(String(list.rules).utf8)
            out.append(UInt8(ascii: "}"))
        }
        out += Array("]}\n".utf8)
        return out
    }

    /// List ids name files and appear unescaped in the manifest: lowercase letters, digits, `-`, `_`.
    static func isSafeListID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy {
            ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d || $0 == 0x5f
        }
    }

    /// Compresses the lists whose gzip sibling is missing, spreading the work over every core.
    /// The largest lists go first, so that no core is left alone with a big list at the end.
    private static func compressMissing(_ planned: inout [PlannedList], gzipExists: (String) -> Bool) throws {
        let jobs = planned.indices.filter { !gzipExists(planned[$0].gzipName) }
            .sorted { planned[$0].identity.count > planned[$1].identity.count || (planned[$0].identity.count == planned[$1].identity.count && $0 < $1) }
        guard !jobs.isEmpty else { return }
        let inputs = jobs.map { planned[$0].identity }
        let results = onEveryCore(inputs.count) { slot in Result { try Gzip.compress(inputs[slot]) } }
        for (slot, index) in jobs.enumerated() {
            switch results[slot] {
            case .success(let bytes): planned[index].gzip = bytes
            case .failure(let error): throw PublishError.compression(planned[index].fileName, "\(error)")
            }
        }
    }

    /// `(0..<count).map(body)` with the calls spread over every core; results in index order.
    private static func onEveryCore<T>(_ count: Int, _ body: (Int) -> T) -> [T] {
        guard count > 0 else { return [] }
        var slots = [T?](repeating: nil, count: count)
        slots.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            // Each iteration writes only its own slot.
            DispatchQueue.concurrentPerform(iterations: count) { base[$0] = body($0) }
        }
        return slots.map { $0! }
    }
}
