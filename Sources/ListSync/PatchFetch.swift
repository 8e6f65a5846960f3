import DictionaryPatch
import Foundation

/// On the device: a changed list fetched as a dcz patch from the version the store holds.
/// Every check comes before anything is stored (the patch's SHA-256, the dictionary hash in its
/// header, the decode bounds, the result's SHA-256); any failure is a reason to take the full file.
struct PatchFetch: Sendable {
    /// The largest `bytes` a manifest entry may claim before the client stops trusting it for a
    /// decode bound: WebKit takes at most 150,000 rules, far below this.
    static let maximumListBytes = 64 << 20

    var fetcher: HTTPFetcher
    var store: SyncStore
    var decoder: PatchDecoder

    /// What a patch attempt gave: the stored file, or why the full file must be fetched.
    enum Outcome: Sendable {
        case stored(SyncReport.DownloadedFile)
        case fallback(String)
        /// A derived name answered 404: the publisher kept no patch from this version (too large,
        /// or too old). No failure; the full file follows.
        case notPublished
    }

    /// The patch for `entry` from a version the store holds intact: the one the entry lists, or the
    /// name derived from the two hashes when the manifest says patches are named that way (a patch
    /// the publisher did not keep then answers 404, and the full file follows).
    static func candidate(for entry: Manifest.Entry, in manifest: Manifest, held: [String: String], store: SyncStore)
        -> (Manifest.Patch, String)?
    {
        guard let heldSHA = held[entry.id], heldSHA != entry.sha256,
            let patch = entry.patches?.first(where: { $0.from == heldSHA })
                ?? manifest.derivedPatch(for: entry, from: heldSHA),
            store.holdsIntact(sha256: heldSHA)
        else { return nil }
        return (patch, heldSHA)
    }

    func fetch(_ entry: Manifest.Entry, patch: Manifest.Patch, heldSHA256: String, manifestURL: URL) async -> Outcome {
        guard let bytes = entry.bytes, bytes >= 0, bytes <= Self.maximumListBytes else {
            return .fallback("the manifest gives no usable size for \(entry.file)")
        }
        guard !patch.file.isEmpty, !patch.file.contains("/"), !patch.file.contains("\\"), !patch.file.hasPrefix("."),
            let url = URL(string: patch.file, relativeTo: manifestURL)?.absoluteURL
        else {
            return .fallback("the patch name \"\(patch.file)\" is not a file beside the manifest")
        }
        guard let held = FileManager.default.contents(atPath: store.fileURL(sha256: heldSHA256).path) else {
            return .fallback("the held version \(heldSHA256.prefix(12)) is gone from the store")
        }
        let response: HTTPFetcher.Response
        do {
            response = try await fetcher.get(url, headers: [:])
        } catch {
            return .fallback("fetching \(patch.file) failed: \(error)")
        }
        if response.status == 404, patch.sha256.isEmpty { return .notPublished }
        guard response.status == 200 else { return .fallback("\(patch.file) answered \(response.status)") }
        let actual = SHA256Digest.hex(of: response.body)
        // A derived name carries no hash of its own; the decoder checks the result's SHA-256 below.
        guard actual == patch.sha256 || patch.sha256.isEmpty else {
            return .fallback(
                "\(patch.file) has SHA-256 \(actual.prefix(12)), the manifest says \(patch.sha256.prefix(12))")
        }
        let decoded: Data
        do {
            decoded = try decoder.apply(response.body, to: held, expectedBytes: bytes, expectedSHA256: entry.sha256)
        } catch {
            return .fallback("\(patch.file): \(error)")
        }
        do {
            try store.storeFile(decoded, sha256: entry.sha256)
        } catch {
            return .fallback("storing the patched \(entry.file) failed: \(error)")
        }
        return .stored(
            SyncReport.DownloadedFile(
                id: entry.id, file: entry.file, sha256: entry.sha256,
                transferredBytes: response.transferredBytes, bytes: decoded.count, patch: patch.file))
    }
}
