import DictionaryPatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The reference device client: brings a `SyncStore` up to date with a published manifest.
///
/// Order of work, so a failure at any step leaves the previous synced set usable:
/// 1. GET the manifest with `If-None-Match` (304: done).
/// 2. Check its format and entries.
/// 3. Download only bodies whose SHA-256 the store lacks; verify each hash before storing it.
/// 4. Only then record the new state, and only after that delete bodies it no longer names.
public struct SyncClient: Sendable {
    public struct Options: Sendable {
        /// Per-request timeout in seconds.
        public var timeout: TimeInterval = 60
        /// Bodies fetched at once.
        public var maxConcurrentDownloads = 4
        /// Applies dcz patches; nil fetches full files only. On Linux the default is
        /// libzstd; on Apple platforms an app passes a decoder with its own zstd.
        public var patchDecoder: PatchDecoder?

        public init(
            timeout: TimeInterval = 60, maxConcurrentDownloads: Int = 4,
            patchDecoder: PatchDecoder? = Options.defaultPatchDecoder
        ) {
            self.timeout = timeout
            self.maxConcurrentDownloads = max(1, maxConcurrentDownloads)
            self.patchDecoder = patchDecoder
        }

        public static var defaultPatchDecoder: PatchDecoder? {
            #if canImport(CZstdShim)
                return PatchDecoder()
            #else
                return nil
            #endif
        }
    }

    public let manifestURL: URL
    public let store: SyncStore
    private let fetcher: HTTPFetcher
    private let options: Options
    /// Which manifests are accepted (signature, generation, expiry); checked before any other use.
    public let trust: ManifestTrust

    /// - Parameters:
    ///   - trust: the pinned public keys, or `.unsignedAllowed` for a server that does not sign.
    ///   - session: pass one without a URL cache (the client does its own revalidation);
    ///     nil makes an ephemeral one.
    public init(
        manifestURL: URL, store: SyncStore, trust: ManifestTrust, session: URLSession? = nil,
        options: Options = Options()
    ) {
        self.manifestURL = manifestURL
        self.store = store
        self.trust = trust
        self.options = options
        self.fetcher = HTTPFetcher(session: session ?? SyncClient.makeSession(), timeout: options.timeout)
    }

    /// An ephemeral session with no URL cache: the store is the cache.
    public static func makeSession(maxConnectionsPerHost: Int = 4) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
        return URLSession(configuration: configuration)
    }

    public func sync() async throws -> SyncReport {
        try store.prepare()
        let lock = try store.lock()
        defer { lock.release() }
        let manifestString = manifestURL.absoluteString
        let previous = try store.loadState().flatMap { $0.manifestURL == manifestString ? $0 : nil }

        var headers: [String: String] = [:]
        // Step 1: GET the manifest with If-None-Match, only when the store still holds everything
        // the recorded state names; otherwise a 304 would leave the device without a usable set.
        if let previous, let etag = previous.etag,
            previous.manifest.lists.allSatisfy({ store.contains(sha256: $0.sha256) })
        {
            headers["If-None-Match"] = etag
        }
        let response = try await fetcher.get(manifestURL, headers: headers, limit: Manifest.maximumBytes)
        if response.status == 304, headers["If-None-Match"] != nil {
            if let previous { try ManifestTrust.checkNotExpired(previous.manifest, url: manifestString, now: Date()) }
            return SyncReport(
                manifestURL: manifestString, outcome: .notModified, manifestStatus: 304,
                manifestTransferredBytes: response.transferredBytes, downloaded: [], reusedFiles: 0,
                recompile: [], removedLists: [], removedFiles: 0,
                unprotectedSites: previous?.manifest.unprotectedSites ?? [])
        }
        guard response.status == 200 else {
            throw SyncError.manifestStatus(url: manifestString, status: response.status)
        }
        // Step 2: check its signature, then its format and entries.
        try await trust.check(response.body, url: manifestURL, held: previous?.manifest, now: Date()) { url in
            let signature = try await fetcher.get(url, headers: [:], limit: MinisignSignature.maximumFileBytes)
            return (signature.status, signature.body)
        }
        let manifest = try ManifestValidator.decode(response.body, url: manifestString)
        let fileURLs = try ManifestValidator.resolveFiles(manifest, against: manifestURL)

        // Step 3: fetch what the store lacks (or holds damaged), each distinct hash once.
        var wanted: [(index: Int, url: URL)] = []
        var seen = Set<String>()
        var reused = 0
        for (index, entry) in manifest.lists.enumerated() {
            if store.holdsIntact(sha256: entry.sha256) {
                reused += 1
            } else if seen.insert(entry.sha256).inserted {
                wanted.append((index, fileURLs[index]))
            }
        }
        // The version of each id the device holds: a patch from it replaces the full file.
        let held = Dictionary(
            (previous?.manifest.lists ?? []).map { ($0.id, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        let downloaded = try await download(wanted, manifest: manifest, held: held)

        // Step 4: the new set is complete on disk; record it, then tidy.
        try store.saveState(
            SyncState(
                manifestURL: manifestString, etag: response.headers["etag"],
                manifest: manifest, syncedAt: Date()))
        let removed = try store.removeFiles(notIn: Set(manifest.lists.map(\.sha256)))

        let before = Dictionary(
            (previous?.manifest.lists ?? []).map { ($0.id, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        let recompile = manifest.lists.filter { before[$0.id] != $0.sha256 }.map(\.id)
        let nowIDs = Set(manifest.lists.map(\.id))
        let removedLists = (previous?.manifest.lists ?? []).map(\.id).filter { !nowIDs.contains($0) }
        let changed = !recompile.isEmpty || !removedLists.isEmpty || previous == nil
        return SyncReport(
            manifestURL: manifestString, outcome: changed ? .updated : .unchanged, manifestStatus: 200,
            manifestTransferredBytes: response.transferredBytes, downloaded: downloaded,
            reusedFiles: reused, recompile: recompile, removedLists: removedLists, removedFiles: removed,
            unprotectedSites: manifest.unprotectedSites ?? [],
            unprotectedSitesChanged: (manifest.unprotectedSites ?? []) != (previous?.manifest.unprotectedSites ?? []))
    }

    /// Fetches, verifies and stores each wanted body, a few at a time; returns them in manifest order.
    private func download(_ wanted: [(index: Int, url: URL)], manifest: Manifest, held: [String: String]) async throws
        -> [SyncReport.DownloadedFile]
    {
        var results: [Int: SyncReport.DownloadedFile] = [:]
        try await withThrowingTaskGroup(of: (Int, SyncReport.DownloadedFile).self) { group in
            var next = 0
            func addNext() {
                guard next < wanted.count else { return }
                let item = wanted[next]
                let entry = manifest.lists[item.index]
                next += 1
                group.addTask { (item.index, try await self.fetchOne(entry, in: manifest, from: item.url, held: held)) }
            }
            for _ in 0..<min(options.maxConcurrentDownloads, wanted.count) { addNext() }
            while let (index, file) = try await group.next() {
                results[index] = file
                addNext()
            }
        }
        return results.keys.sorted().compactMap { results[$0] }
    }

    private func fetchOne(_ entry: Manifest.Entry, in manifest: Manifest, from url: URL, held: [String: String])
        async throws -> SyncReport.DownloadedFile
    {
        var fallback: String?
        if let decoder = options.patchDecoder,
            let (patch, heldSHA) = PatchFetch.candidate(for: entry, in: manifest, held: held, store: store)
        {
            let attempt = PatchFetch(fetcher: fetcher, store: store, decoder: decoder)
            switch await attempt.fetch(entry, patch: patch, heldSHA256: heldSHA, manifestURL: manifestURL) {
            case .stored(let file): return file
            case .fallback(let reason): fallback = reason
            case .notPublished: break
            }
        }
        let response = try await fetcher.get(url, headers: [:])
        guard response.status == 200 else {
            throw SyncError.fileStatus(url: url.absoluteString, status: response.status)
        }
        let actual = SHA256Digest.hex(of: response.body)
        guard actual == entry.sha256 else {
            throw SyncError.hashMismatch(
                url: url.absoluteString, expected: entry.sha256, actual: actual, bytes: response.body.count)
        }
        try store.storeFile(response.body, sha256: entry.sha256)
        return SyncReport.DownloadedFile(
            id: entry.id, file: entry.file, sha256: entry.sha256,
            transferredBytes: response.transferredBytes, bytes: response.body.count, patchFallback: fallback)
    }
}
