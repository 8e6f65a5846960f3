import DictionaryPatch
import Dispatch
import Foundation
import HTTPServerCore
import ListFormat
import ListSync
import OriginStore

/// A primary's set as fetched and checked: every byte verified against the signed manifest (or,
/// for a derived patch, by applying it), ready for `FollowInstaller`.
package struct FollowedSet: Sendable {
    package var manifestBytes: [UInt8]
    package var manifest: Manifest
    package var manifestSHA256: String
    /// The manifest's ETag, sent back as If-None-Match on the next poll.
    var manifestETag: String?
    package var signature: [UInt8]
    /// The primary's Last-Modified for each served name (manifest and signature included).
    var dates: [String: Date]
    /// Identity bytes of every list file the manifest names, by name.
    package var lists: [String: [UInt8]]
    /// Patches by the list file they lead to: those the manifest names and the derivable ones the primary has.
    package var patches: [String: [PlannedPatch]]
    /// The primary's `provenance.txt` and `report.json` (`SetSidecars`), those it served.
    var sidecars: [String: [UInt8]] = [:]
}

/// Why a poll did not install anything. The last good set stays served either way.
package enum FollowError: Error, CustomStringConvertible, Equatable {
    /// What a device would refuse too: bad or missing signature, lower generation, expired, a hash that does not match.
    case refused(String)
    /// The primary (or one of its files) could not be fetched; retried at the next poll.
    case failed(String)

    package var description: String {
        switch self {
        case .refused(let reason): return "refused: \(reason)"
        case .failed(let reason): return "failed: \(reason)"
        }
    }
}

/// One poll of the primary: the manifest with If-None-Match, its signature checked with the
/// device's own rules (`ManifestTrust`), then every file the follower lacks, each checked against
/// its hash. Patches: those the manifest names, plus `<id>.<from12>-<to12>.dcz` for every older
/// version of an id the follower still serves (a device derives the same names); a 404 for a
/// derived name only means the primary has no such patch.
package struct SetFollower: Sendable {
    package var manifestURL: URL
    package var trust: ManifestTrust
    package var fetcher: CurlFetcher

    /// A follower that accepts what a device pinned to `trustedKeys` accepts (`ListSync.ManifestTrust`):
    /// the device's rules live in one place, and only this module reaches the device client for them.
    package init(manifestURL: URL, trustedKeys: [MinisignPublicKey], fetcher: CurlFetcher) throws {
        self.manifestURL = manifestURL
        self.trust = try ManifestTrust(trustedKeys: trustedKeys)
        self.fetcher = fetcher
    }

    /// The primary's set when it differs from `held`; nil when the primary answered 304 or serves
    /// the held manifest's bytes.
    /// `cancelled` is asked before every request: true ends the poll with `.failed` (the server is stopping).
    package func poll(
        held: PublishedSet?, heldETag: String?, now: Date = Date(),
        cancelled: @escaping @Sendable () -> Bool = { false }
    ) throws(FollowError) -> FollowedSet? {
        var follower = self
        follower.cancelled = cancelled
        return try follower.pollOnce(held: held, heldETag: heldETag, now: now)
    }

    private var cancelled: @Sendable () -> Bool = { false }

    private func pollOnce(held: PublishedSet?, heldETag: String?, now: Date) throws(FollowError) -> FollowedSet? {
        let manifestName = PublishedFileNames.manifest
        let result: FetchResult
        if cancelled() { throw .failed("stopping: the manifest not fetched") }
        do {
            result = try fetcher.fetch(
                manifestURL.absoluteString, validators: heldETag.map { Validators(etag: $0, lastModified: nil) })
        } catch {
            throw .failed("\(error)")
        }
        guard case .body(let body, let validators) = result else { return nil }
        let sha = SHA256Digest.hex(of: body)
        if sha == held?.manifestSHA256 { return nil }
        guard body.count <= Manifest.maximumBytes else {
            throw .refused("the manifest is \(body.count) bytes, over the \(Manifest.maximumBytes) cap")
        }
        let signatureName = PublishedFileNames.signature(forManifest: sha)
        guard let signature = try get(signatureName) else {
            throw .refused("the manifest \(sha.prefix(12)) is not signed (\(signatureName) answers 404)")
        }
        try checkTrust(Data(body), signature: Data(signature.bytes), held: held?.manifest, now: now)
        let manifest: Manifest
        do {
            manifest = try ManifestLists.decode(Data(body))
        } catch {
            throw .refused("the signed manifest is not a set this origin can serve (\(error))")
        }
        var set = FollowedSet(
            manifestBytes: body, manifest: manifest, manifestSHA256: sha, manifestETag: validators.etag,
            signature: signature.bytes,
            dates: [:], lists: [:], patches: [:])
        set.dates[manifestName] = validators.lastModified.flatMap(Self.parseDate) ?? now
        set.dates[signatureName] = signature.date ?? now
        for entry in manifest.lists {
            let bytes = try file(entry.file, sha256: entry.sha256, held: held, into: &set)
            set.lists[entry.file] = bytes
            var patches: [PlannedPatch] = []
            for patch in entry.patches ?? [] {
                let patchBytes = try file(patch.file, sha256: patch.sha256, held: held, into: &set)
                patches.append(
                    PlannedPatch(from: patch.from, fileName: patch.file, sha256: patch.sha256, bytes: patchBytes))
            }
            patches += try derivedPatches(
                for: entry, identity: bytes, named: Set(patches.map(\.fileName)), held: held, into: &set)
            set.patches[entry.file] = patches
        }
        // What /explain and the status page read beside the set. Best effort: a primary that does
        // not serve them (404), or one that fails, leaves the follower without line attribution.
        for name in SetSidecars.names {
            if let fetched = try? get(name) { set.sidecars[name] = fetched.bytes }
        }
        return set
    }

    /// The device's checks, run synchronously: signature by a trusted key, generation not below the
    /// held one, not expired.
    private func checkTrust(_ body: Data, signature: Data, held: Manifest?, now: Date) throws(FollowError) {
        final class Outcome: @unchecked Sendable { var error: Error? }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let trust = trust
        let url = manifestURL
        Task {
            do {
                try await trust.check(body, url: url, held: held, now: now) { _ in (200, signature) }
            } catch {
                outcome.error = error
            }
            done.signal()
        }
        done.wait()
        if let error = outcome.error { throw .refused("\(error)") }
    }

    /// A file's bytes: the held copy when its hash matches, else fetched and checked.
    private func file(_ name: String, sha256: String, held: PublishedSet?, into set: inout FollowedSet)
        throws(FollowError) -> [UInt8]
    {
        if let entry = held?.content.files[name], entry.sha256 == sha256 {
            set.dates[name] = entry.lastModified
            return entry.identity
        }
        guard let fetched = try get(name) else {
            throw .failed("the manifest names \(name), which the primary answers 404 for; will retry")
        }
        let actual = SHA256Digest.hex(of: fetched.bytes)
        guard actual == sha256 else {
            throw .refused("\(name) has SHA-256 \(actual.prefix(12))…, the signed manifest says \(sha256.prefix(12))…")
        }
        set.dates[name] = fetched.date ?? Date()
        return fetched.bytes
    }

    /// Patches from each older version of `entry`'s id the follower serves, under the names a
    /// device derives. Each is checked by applying it to the old version.
    private func derivedPatches(
        for entry: Manifest.Entry, identity: [UInt8], named: Set<String>, held: PublishedSet?,
        into set: inout FollowedSet
    ) throws(FollowError) -> [PlannedPatch] {
        guard let held else { return [] }
        var out: [PlannedPatch] = []
        let olds = held.content.files.values.filter {
            PublishedFileNames.listID(ofListFile: $0.name) == entry.id && $0.sha256 != entry.sha256
        }
        for old in olds.sorted(by: { $0.name < $1.name }) {
            guard let name = PatchFileName(listID: entry.id, fromSHA256: old.sha256, toSHA256: entry.sha256)?.name,
                !named.contains(name)
            else { continue }
            let bytes: [UInt8]
            let date: Date?
            if let kept = held.content.files[name] {
                (bytes, date) = (kept.identity, kept.lastModified)
            } else {
                guard let fetched = try get(name) else { continue }
                (bytes, date) = (fetched.bytes, fetched.date)
            }
            do {
                _ = try PatchDecoder().apply(
                    Data(bytes), to: Data(old.identity), expectedBytes: identity.count, expectedSHA256: entry.sha256)
            } catch {
                throw .refused("\(name) does not turn \(old.name) into \(entry.file) (\(error))")
            }
            set.dates[name] = date ?? Date()
            out.append(
                PlannedPatch(from: old.sha256, fileName: name, sha256: SHA256Digest.hex(of: bytes), bytes: bytes))
        }
        return out
    }

    /// GET a name relative to the manifest; nil on 404 or 410.
    private func get(_ name: String) throws(FollowError) -> (bytes: [UInt8], date: Date?)? {
        if cancelled() { throw .failed("stopping: \(name) not fetched") }
        guard let url = URL(string: name, relativeTo: manifestURL)?.absoluteString else {
            throw .failed("cannot form a URL for \(name)")
        }
        do {
            switch try fetcher.fetch(url, validators: nil) {
            case .body(let bytes, let validators): return (bytes, validators.lastModified.flatMap(Self.parseDate))
            case .notModified: throw FetchError.httpStatus(url: url, status: 304)
            }
        } catch {
            if case .httpStatus(_, let status) = error as? FetchError, status == 404 || status == 410 { return nil }
            throw .failed("\(error)")
        }
    }

    /// An HTTP-date (RFC 9110 §5.6.7) as a Date.
    static func parseDate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { HTTPDate.parse($0) }.map { Date(timeIntervalSince1970: Double($0)) }
    }
}
