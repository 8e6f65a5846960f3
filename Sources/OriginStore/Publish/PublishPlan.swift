import Converter
import Dispatch
import Foundation
import ListFormat

/// One list of a set, named by its content so a CDN can cache it forever.
package struct PlannedList: Sendable, Equatable {
    package var id: String
    package var rules: Int
    /// Lowercase hex SHA-256 of `identity`; the manifest's `sha256`.
    package var sha256: String
    /// `<id>.<sha256[:12]>.json`.
    package var fileName: String
    /// The JSON array bytes exactly as WebKit compiles them.
    package var identity: [UInt8]
    /// Deterministic gzip of `identity` (reused from the previous set when it holds this file).
    package var gzip: [UInt8]?
    /// dcz patches from earlier versions of this id (`PatchPlanner`), most recent first.
    package var patches: [PlannedPatch] = []

    package var gzipName: String { fileName + ".gz" }
    var manifestEntry: Manifest.Entry {
        Manifest.Entry(
            id: id, file: fileName, sha256: sha256, rules: rules, bytes: identity.count,
            patches: patches.map(\.manifestEntry))
    }
}

extension PlannedList {
    /// A list a manifest names, with its bytes as fetched (a follower installing a primary's set).
    package init(_ entry: Manifest.Entry, identity: [UInt8], gzip: [UInt8]?, patches: [PlannedPatch]) {
        self.init(
            id: entry.id, rules: entry.rules, sha256: entry.sha256, fileName: entry.file, identity: identity,
            gzip: gzip, patches: patches)
    }
}

/// Everything one publish writes, computed without touching the target directory. Pure, deterministic bytes: the same conversion output always
/// gives the same names, manifest bytes (and so the same ETag on every origin).
package struct PublishPlan: Sendable {
    package static let manifestName = PublishedFileNames.manifest
    package static let reportName = PublishedFileNames.report
    package static let layoutName = PublishedFileNames.layout
    /// Length of the hash prefix in file names: 48 bits, plenty to tell one day's lists apart.
    static let hashPrefixLength = PublishedFileNames.hashPrefixLength

    package var lists: [PlannedList]
    /// `{"format":1,"lists":[{"id","file","sha256","rules","bytes","patches":[{"from","file","sha256","bytes"}]}]}`.
    package var manifest: [UInt8]
    package var manifestSHA256: String
    /// The conversion report as sorted-key JSON.
    package var report: [UInt8]
    /// The converter's opaque layout state, published beside the manifest as `layout.json`.
    package var layoutState: [UInt8]
    /// `ProvenanceFile` bytes for the converted lists, written beside the manifest before it (nil: none,
    /// for outputs made by hand). No device reads it, and the server serves only what the manifest names.
    package var provenance: [UInt8]? = nil
    /// The manifest's detached signature, set by `Publisher.signPlan` (nil: unsigned).
    package var signature: PublishedSignature? = nil

    /// Every file name the manifest makes reachable (identity and gzip).
    package var fileNames: [String] { lists.flatMap { [$0.fileName, $0.gzipName] + $0.patches.map(\.fileName) } }

    /// Plans the set for a conversion output.
    /// - Parameter knownGzip: the gzip bytes already published under a name (the previous set's),
    ///   so the (slow) compression runs only for lists that changed.
    package static func make(from output: ConversionOutput, knownGzip: (String) -> [UInt8]? = { _ in nil }) throws
        -> PublishPlan
    {
        try make(lists: output.lists, report: output.report, layoutState: output.layoutState, knownGzip: knownGzip)
    }

    /// Plans the set for explicit lists (the publish gate may swap in a list's previous version).
    /// Each list is hashed here, once; everything after (gate, writer, served content) uses this hash.
    package static func make(
        lists: [RuleList], report: ConversionReport, layoutState: [UInt8],
        knownGzip: (String) -> [UInt8]? = { _ in nil }
    ) throws -> PublishPlan {
        let planned = try name(lists)
        return try make(named: planned, report: report, layoutState: layoutState, knownGzip: knownGzip)
    }

    /// Checks the ids and names each list by its hash (no compression yet).
    package static func name(_ lists: [RuleList]) throws -> [PlannedList] {
        guard !lists.isEmpty else { throw PublishError.emptySet }
        var seen = Set<String>()
        for list in lists {
            guard isSafeListID(list.id) else { throw PublishError.invalidListID(list.id) }
            guard seen.insert(list.id).inserted else { throw PublishError.duplicateListID(list.id) }
        }
        let hashes = Parallel.map(lists.count) { SHA256Digest.hex(of: lists[$0].json) }
        return zip(lists, hashes).map { list, hash in
            PlannedList(
                id: list.id, rules: list.ruleCount, sha256: hash, fileName: fileName(id: list.id, sha256: hash),
                identity: list.json, gzip: nil)
        }
    }

    /// Completes a plan from named lists: gzip (reused where known), manifest and report bytes.
    /// - Parameter planPatches: fills each list's `patches` once its gzip bytes are known.
    package static func make(
        named lists: [PlannedList], report: ConversionReport, layoutState: [UInt8],
        knownGzip: (String) -> [UInt8]? = { _ in nil },
        planPatches: (inout [PlannedList]) -> Void = { _ in }
    ) throws -> PublishPlan {
        var planned = lists
        for index in planned.indices where planned[index].gzip == nil {
            planned[index].gzip = knownGzip(planned[index].gzipName)
        }
        try compressMissing(&planned)
        planPatches(&planned)
        let manifest = manifestBytes(planned)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let reportBytes: [UInt8]
        do {
            reportBytes = Array(try encoder.encode(report))
        } catch {
            throw PublishError.reportEncoding("\(error)")
        }
        return PublishPlan(
            lists: planned, manifest: manifest, manifestSHA256: SHA256Digest.hex(of: manifest),
            report: reportBytes, layoutState: layoutState)
    }

    /// `<id>.<sha256[:12]>.json`.
    package static func fileName(id: String, sha256: String) -> String {
        PublishedFileNames.list(id: id, sha256: sha256)
    }

    /// The manifest for these lists, written by the one owner of the format (`ListFormat.Manifest`).
    /// Patches go under derived names, so the published bytes leave each entry's `patches` out.
    package static func manifestBytes(_ lists: [PlannedList]) -> [UInt8] {
        manifest(lists).encoded()
    }

    /// The manifest as the server keeps it in memory: with each entry's patches, which the published
    /// bytes leave out (`Manifest.derivedPatchFiles`).
    package static func manifest(_ lists: [PlannedList]) -> Manifest {
        Manifest(patchFiles: Manifest.derivedPatchFiles, lists: lists.map(\.manifestEntry))
    }

    /// List ids name files and appear unescaped in the manifest: lowercase letters, digits, `-`, `_`.
    static func isSafeListID(_ id: String) -> Bool {
        PublishedFileNames.isListID(id)
    }

    /// Compresses the lists that have no gzip bytes yet, spreading the work over every core.
    /// The largest lists go first, so that no core is left alone with a big list at the end.
    private static func compressMissing(_ planned: inout [PlannedList]) throws {
        let jobs = planned.indices.filter { planned[$0].gzip == nil }
            .sorted {
                planned[$0].identity.count > planned[$1].identity.count
                    || (planned[$0].identity.count == planned[$1].identity.count && $0 < $1)
            }
        guard !jobs.isEmpty else { return }
        let inputs = jobs.map { planned[$0].identity }
        let results = Parallel.map(inputs.count) { slot in Result { try Gzip.compress(inputs[slot]) } }
        for (slot, index) in jobs.enumerated() {
            switch results[slot] {
            case .success(let bytes): planned[index].gzip = bytes
            case .failure(let error): throw PublishError.compression(planned[index].fileName, "\(error)")
            }
        }
    }

    package init(
        lists: [PlannedList], manifest: [UInt8], manifestSHA256: String, report: [UInt8], layoutState: [UInt8],
        provenance: [UInt8]? = nil, signature: PublishedSignature? = nil
    ) {
        self.lists = lists
        self.manifest = manifest
        self.manifestSHA256 = manifestSHA256
        self.report = report
        self.layoutState = layoutState
        self.provenance = provenance
        self.signature = signature
    }
}
