import DurableFile
import Foundation
import ListFormat
import ManifestSigning

#if canImport(Glibc)
    import Glibc
#endif

/// The detached minisign signature of one manifest, published at `signatures/<sha256>.minisig`
/// (the manifest's own hash, so no cache can pair a manifest with another one's signature).
package struct PublishedSignature: Sendable, Equatable {
    static let directoryName = PublishedFileNames.signatureDirectory

    package var manifestSHA256: String
    /// The `.minisig` file bytes.
    package var bytes: [UInt8]

    package var name: String { Self.name(forManifest: manifestSHA256) }

    package static func name(forManifest sha256: String) -> String { PublishedFileNames.signature(forManifest: sha256) }

    /// The manifest hash a signature file name carries, nil for any other name.
    package static func manifestSHA256(inFileName name: String) -> String? {
        PublishedFileNames.manifestSHA256(inSignatureFileName: name)
    }

    /// The parsed signature (key id and trusted comment), nil when the bytes are not a minisign signature.
    package var parsed: MinisignSignature? { try? MinisignSignature(parsing: Data(bytes)) }

    /// The `expires:` time the trusted comment carries.
    package var expires: Date? {
        guard let comment = parsed?.trustedComment else { return nil }
        return TrustedComment(parsing: comment).expires.flatMap(ManifestSigner.parseTime)
    }

    /// As served; `signedAt` is Last-Modified and /status's time of signing.
    func servedEntry(signedAt: Date) -> SiteContent.Entry {
        SiteContent.Entry(
            name: name, identity: bytes, gzip: nil, sha256: SHA256Digest.hex(of: bytes), lastModified: signedAt)
    }

    package init(manifestSHA256: String, bytes: [UInt8]) {
        self.manifestSHA256 = manifestSHA256
        self.bytes = bytes
    }
}

/// Gives each published manifest its `generation` and `expires` and signs it.
///
/// Determinism: the signing time is the publish time rounded down to a step (a day when the validity
/// is 4 days or more; else an hour, minute or second, whichever is at most a quarter of it). So
/// origins fed the same bytes and state that publish within the same step write the same manifest,
/// and Ed25519 is deterministic, so the same signature. `generation` is
/// `max(previous generation + 1, signing time in Unix seconds)`: it grows with every new manifest,
/// survives restarts (it is read back from the published manifest), starts above any set published
/// without one (a state upgrade), and even a lost public directory does not take it back below the clock.
package struct ManifestSigner: Sendable {
    package var key: ManifestSigningKey
    /// Seconds from the signing time to `expires`.
    package var validity: Double

    package var step: Double {
        for step in [86_400.0, 3_600, 60] where step * 4 <= validity { return step }
        return 1
    }

    /// Unix seconds, rounded down to `step`.
    func signingTime(_ now: Date) -> Int {
        Int((now.timeIntervalSince1970 / step).rounded(.down) * step)
    }

    /// True when `manifest` must be signed anew: unsigned, signed by another key, or less than half
    /// of the validity left (so a device polling daily never sees it expire while the origin runs).
    func isDue(_ manifest: Manifest, signedBy: MinisignKeyID?, now: Date) -> Bool {
        guard manifest.generation != nil, let expires = manifest.expires.flatMap(Self.parseTime), signedBy == key.keyID
        else { return true }
        return expires.timeIntervalSince(now) < validity / 2
    }

    /// `unsigned` with its generation (above `previousGeneration`) and expiry, as bytes, and its signature.
    package func sign(_ unsigned: Manifest, previousGeneration: Int, now: Date) throws -> (
        bytes: [UInt8], signature: PublishedSignature
    ) {
        let signedAt = signingTime(now)
        var manifest = unsigned
        let generation = max(previousGeneration + 1, signedAt)
        let expires = Self.formatTime(signedAt + Int(validity))
        manifest.generation = generation
        manifest.expires = expires
        let bytes = manifest.encoded()
        let signature: MinisignSignature
        do {
            signature = try key.sign(
                Data(bytes), trustedComment: TrustedComment(generation: generation, expires: expires).text)
        } catch {
            throw PublishError.signing("\(error)")
        }
        return (
            bytes, PublishedSignature(manifestSHA256: SHA256Digest.hex(of: bytes), bytes: Array(signature.fileBytes))
        )
    }

    static func formatTime(_ seconds: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(seconds)))
    }

    static func parseTime(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    package init(key: ManifestSigningKey, validity: Double) {
        self.key = key
        self.validity = validity
    }
}

extension Publisher {
    /// Publish hook: stamps and signs the plan's manifest. Keeps the previous manifest's exact bytes
    /// (and signature) when its content is the same and its signature is not due for renewal.
    func signPlan(_ plan: inout PublishPlan, previous: PublishedSet?, now: Date) throws {
        guard let signer else { return }
        let unsigned = try Manifest.decode(Data(plan.manifest))
        let prior = previous?.content.manifest.flatMap { try? Manifest.decode(Data($0.identity)) }
        if let previous, previous.directory == writer.directory, var stripped = prior,
            let hash = previous.manifestSHA256,
            let signature = previous.content.signatures[PublishedSignature.name(forManifest: hash)]
        {
            let signedBy = PublishedSignature(manifestSHA256: hash, bytes: signature.identity).parsed?.keyID
            stripped.generation = nil
            stripped.expires = nil
            if stripped == unsigned, !signer.isDue(prior!, signedBy: signedBy, now: now),
                let bytes = previous.content.manifest?.identity
            {
                plan.manifest = bytes
                plan.manifestSHA256 = hash
                plan.signature = PublishedSignature(manifestSHA256: hash, bytes: signature.identity)
                return
            }
        }
        let (bytes, signature) = try signer.sign(
            unsigned, previousGeneration: highestGeneration(prior, previous), now: now)
        plan.manifest = bytes
        plan.manifestSHA256 = signature.manifestSHA256
        plan.signature = signature
    }

    /// The highest generation the served manifest or any signature still served carries, so a publish
    /// without a key in between (no generation) does not take the generation back.
    func highestGeneration(_ manifest: Manifest?, _ set: PublishedSet?) -> Int {
        var highest = manifest?.generation ?? 0
        for (name, entry) in set?.content.signatures ?? [:] {
            let signature = PublishedSignature(manifestSHA256: name, bytes: entry.identity)
            if let comment = signature.parsed?.trustedComment, let value = TrustedComment(parsing: comment).generation {
                highest = max(highest, value)
            }
        }
        return highest
    }

    /// The signatures the set serves after a publish: the new one and every earlier one not yet expired.
    package func signatures(after previous: PublishedSet?, plan: PublishPlan, now: Date) -> [String: SiteContent.Entry]
    {
        var out = previous?.directory == writer.directory ? previous?.content.signatures ?? [:] : [:]
        if let signature = plan.signature {
            out[signature.name] = out[signature.name] ?? signature.servedEntry(signedAt: now)
        }
        return out
    }

    /// Removes signature files whose manifest has expired (no client accepts it any more), never the current one.
    package func pruneSignatures(of set: inout PublishedSet, now: Date) {
        writer.pruneSignatures(of: &set, now: now)
    }

    /// Refresh hook for a set whose lists did not change: signs its manifest anew when the signature
    /// is due (half the validity gone, or the key changed). Writes the signature, then the manifest;
    /// no list file changes. Returns the new set, nil when nothing was due.
    package func renewSignatureIfDue(
        of current: PublishedSet, history: inout [PersistentState.PublishRecord], now: Date
    ) throws -> PublishedSet? {
        guard let signer, let entry = current.content.manifest,
            let manifest = try? Manifest.decode(Data(entry.identity))
        else { return nil }
        let signedBy = current.manifestSHA256.flatMap {
            current.content.signatures[PublishedSignature.name(forManifest: $0)]
        }
        .flatMap { PublishedSignature(manifestSHA256: "", bytes: $0.identity).parsed?.keyID }
        guard signer.isDue(manifest, signedBy: signedBy, now: now) else { return nil }
        let next = try rewriteManifest(manifest, of: current, history: &history, now: now)
        log.info(
            "re-signed manifest \(next.manifestSHA256?.prefix(12) ?? "") (generation \(next.manifest.generation ?? 0), expires \(next.manifest.expires ?? "?"))"
        )
        return next
    }
}

extension SetWriter {
    /// Removes signature files whose manifest has expired (no client accepts it any more), never
    /// the current one: a primary after each publish, a follower after each install or check.
    package func pruneSignatures(of set: inout PublishedSet, now: Date) {
        let current = set.manifestSHA256.map(PublishedSignature.name(forManifest:))
        for (name, entry) in set.content.signatures where name != current {
            guard
                let hash = PublishedSignature.manifestSHA256(
                    inFileName: String(name.dropFirst(PublishedSignature.directoryName.count + 1)))
            else { continue }
            let expires = PublishedSignature(manifestSHA256: hash, bytes: entry.identity).expires ?? .distantPast
            if expires < now, unlink(path(name)) == 0 || errno == ENOENT { set.content.signatures[name] = nil }
        }
    }

    /// Writes a signature file (temp file, fsync, rename) unless it is already there; called before
    /// the manifest it signs is renamed into place.
    func writeSignature(_ signature: PublishedSignature) throws {
        let directory = path(PublishedSignature.directoryName)
        if !FileManager.default.fileExists(atPath: directory) {
            guard mkdir(directory, 0o755) == 0 || errno == EEXIST else {
                throw PublishError.write(directory, "cannot create the directory: \(String(cString: strerror(errno)))")
            }
            try atomicSync(self.directory)
        }
        if let existing = FileManager.default.contents(atPath: path(signature.name)), Array(existing) == signature.bytes
        {
            return
        }
        try atomicWrite(signature.bytes, name: signature.name)
    }

    private func atomicSync(_ directory: String) throws {
        do {
            try DurableFile.syncDirectory(directory)
        } catch let error as DurableFileError {
            throw PublishError.write(error.path, error.reason)
        }
    }

    /// Every signature file in `signatures/`, served from memory with the set (the restart path).
    func loadSignatures() -> [String: SiteContent.Entry] {
        let directory = path(PublishedSignature.directoryName)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [:] }
        var out: [String: SiteContent.Entry] = [:]
        for name in names {
            guard let hash = PublishedSignature.manifestSHA256(inFileName: name),
                let data = FileManager.default.contents(atPath: directory + "/" + name),
                data.count <= MinisignSignature.maximumFileBytes
            else { continue }
            let signature = PublishedSignature(manifestSHA256: hash, bytes: Array(data))
            let modified =
                (try? FileManager.default.attributesOfItem(atPath: directory + "/" + name))?[.modificationDate] as? Date
            out[signature.name] = signature.servedEntry(signedAt: modified ?? Date())
        }
        return out
    }
}
