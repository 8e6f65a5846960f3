import Foundation
import ListFormat

extension PublishPlan {
    /// Keeps the unprotected sites the previous manifest carried: a list publish does not change
    /// them (only `Publisher.publishUnprotectedSites` does), so a device never sees them drop out.
    mutating func carryUnprotectedSites(from previous: PublishedSet?) {
        guard let sites = previous?.manifest.unprotectedSites, !sites.isEmpty else { return }
        var carried = Self.manifest(lists)
        carried.unprotectedSites = sites
        manifest = carried.encoded()
        manifestSHA256 = SHA256Digest.hex(of: manifest)
    }
}

extension Publisher {
    /// Publishes a manifest that carries `sites` (normalised, sorted) and names exactly the lists
    /// `current` names: no list file is written, so no device recompiles. Returns nil when the
    /// manifest already carries them.
    package func publishUnprotectedSites(
        _ sites: [String], over current: PublishedSet, history: inout [PersistentState.PublishRecord],
        now: Date
    ) throws -> PublishedSet? {
        guard let entry = current.content.manifest, var manifest = try? Manifest.decode(Data(entry.identity)),
            (manifest.unprotectedSites ?? []) != sites
        else { return nil }
        manifest.unprotectedSites = sites.isEmpty ? nil : sites
        let next = try rewriteManifest(manifest, of: current, history: &history, now: now)
        log.info(
            "published manifest \(next.manifestSHA256?.prefix(12) ?? ""): same \(manifest.lists.count) lists, \(sites.count) unprotected sites"
        )
        return next
    }

    /// Writes `manifest` (signed anew when this origin signs: signature first, then the manifest)
    /// over `current` with the same lists, records it in the history and returns the set to serve.
    func rewriteManifest(
        _ manifest: Manifest, of current: PublishedSet, history: inout [PersistentState.PublishRecord],
        now: Date
    ) throws -> PublishedSet {
        var bytes = manifest.encoded()
        var signature: PublishedSignature?
        if let signer {
            var unsigned = manifest
            unsigned.generation = nil
            unsigned.expires = nil
            let signed = try signer.sign(
                unsigned, previousGeneration: highestGeneration(current.manifest, current), now: now)
            bytes = signed.bytes
            signature = signed.signature
            try writer.writeSignature(signed.signature)
        }
        try writer.atomicWrite(bytes, name: PublishPlan.manifestName)
        let hash = signature?.manifestSHA256 ?? SHA256Digest.hex(of: bytes)
        var next = current
        next.manifest = try Manifest.decode(Data(bytes))
        DerivedPatchFiles.carry(from: current.manifest, into: &next.manifest)
        next.content.manifest = PublishedSet.manifestEntry(bytes, sha256: hash, lastModified: now)
        if let signature { next.content.signatures[signature.name] = signature.servedEntry(signedAt: now) }
        let files = manifest.lists.flatMap { [$0.file, $0.file + ".gz"] }
        if let last = history.indices.last, history[last].supersededAt == nil { history[last].supersededAt = now }
        history.append(
            PersistentState.PublishRecord(manifestSHA256: hash, publishedAt: now, supersededAt: nil, files: files))
        pruneSignatures(of: &next, now: now)
        return next
    }
}
