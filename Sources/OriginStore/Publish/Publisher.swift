import Converter
import Foundation
import ListFormat

/// The one publish path (`serve`'s refresh, `fetch` and `convert`): gate every list whose bytes
/// were never published, plan the set (each list hashed once), write it with `SetWriter`, record
/// it in the publish history and prune what only older manifests named once their grace is over.
/// The new set comes back in memory, ready to serve; nothing is read back from disk.
package struct Publisher: Sendable {
    /// A list the gate refused, with WebKit's reason.
    package struct GateRejection: Sendable, Equatable {
        package var id: String
        package var reason: String
    }

    package struct Outcome: Sendable {
        package var plan: PublishPlan
        package var manifestChanged: Bool
        package var createdFiles: [String]
        var removedFiles: [String]
        /// The dcz patches this publish encoded and kept, and the time that took.
        package var patches: PatchPlanner.Summary
        /// The set now published: the plan's files and the older ones still inside the grace period.
        package var published: PublishedSet
        /// New versions' compile times against the versions they replace (nil: nothing compared).
        package var compileComparison: CompileRegressionGate.Comparison? = nil
    }

    package var writer: SetWriter
    /// Seconds a file only older manifests name stays on disk (and served) after it was superseded.
    /// `.infinity` keeps everything (`convert`, which keeps no history).
    package var gracePeriod: Double
    package var gate: (any PublishGate)?
    package var log: Log
    /// Signs every manifest (nil: unsigned, as `convert` without `--signing-key`).
    package var signer: ManifestSigner? = nil
    /// Holds a publish whose new versions compile much slower than the ones they replace (nil: never).
    package var compileRegression: CompileRegressionGate? = nil

    package var retention: Retention { Retention(writer: writer, gracePeriod: gracePeriod) }
    package var loader: PublishedSetLoader { PublishedSetLoader(writer: writer, gracePeriod: gracePeriod) }

    /// Publishes `output` over `previous` (the set the directory serves now, nil when there is
    /// none), updating `history` (oldest first).
    package func publish(
        _ output: ConversionOutput, over previous: PublishedSet?, history: inout [PersistentState.PublishRecord],
        now: Date = Date()
    ) throws -> Outcome {
        let named = try PublishPlan.name(output.lists)
        try gateNewLists(named, previous: previous)
        let comparison = previous.flatMap {
            compileRegression?.compare(named, previous: $0, provenance: output.provenance)
        }
        if let comparison, comparison.held, !comparison.accepted { throw PublishError.compileRegression(comparison) }
        var patches = PatchPlanner.Summary()
        let expired = expiredFiles(
            keeping: Set(named.flatMap { [$0.fileName, $0.gzipName] }), history: history, now: now)
        var plan = try PublishPlan.make(
            named: named, report: output.report, layoutState: output.layoutState,
            knownGzip: {
                previous?.content.files[String($0.dropLast(3))]?.gzip
            }, planPatches: { patches = PatchPlanner().plan(&$0, previous: previous, expired: expired) })
        if !output.provenance.isEmpty {
            plan.provenance = ProvenanceFile.encode(output.provenance, listSHA256: named.map(\.sha256))
        }
        plan.carryUnprotectedSites(from: previous)
        try signPlan(&plan, previous: previous, now: now)
        let written = try writer.write(plan, over: previous)
        retention.record(
            plan, manifestChanged: written.manifestChanged, previous: previous, history: &history, now: now)
        let removed = retention.prune(keeping: Set(plan.fileNames), history: &history, now: now)
        if written.manifestChanged {
            log.info(
                "published manifest \(plan.manifestSHA256.prefix(12)): \(plan.lists.count) lists, \(written.createdFiles.count) new files, \(removed.count) expired files removed, \(patches.written) of \(patches.encoded) new patches kept in \(String(format: "%.3f", patches.seconds)) s"
            )
        }
        var published = successor(
            of: previous, plan: plan, manifestChanged: written.manifestChanged, removed: removed, now: now)
        published.content.signatures = signatures(after: previous, plan: plan, now: now)
        if var signed = try? Manifest.decode(Data(plan.manifest)) {
            DerivedPatchFiles.carry(from: published.manifest, into: &signed)
            published.manifest = signed
        }
        pruneSignatures(of: &published, now: now)
        return Outcome(
            plan: plan, manifestChanged: written.manifestChanged, createdFiles: written.createdFiles,
            removedFiles: removed, patches: patches, published: published, compileComparison: comparison)
    }

    /// With nothing new to publish, still removes files whose grace period ended (an upstream can
    /// answer 304 for weeks). Returns the set without them, or nil when nothing was removed.
    package func expireOldFiles(of current: PublishedSet, history: inout [PersistentState.PublishRecord], now: Date)
        -> (PublishedSet, [String])?
    {
        let keep = Set(current.manifest.lists.flatMap { [$0.file, $0.file + ".gz"] + ($0.patches ?? []).map(\.file) })
        let removed = retention.prune(keeping: keep, history: &history, now: now)
        guard !removed.isEmpty else { return nil }
        var next = current
        for name in removed { next.content.files[name] = nil }
        return (next, removed)
    }

    /// Files on disk this publish's pruning will remove (their grace period is over).
    private func expiredFiles(keeping: Set<String>, history: [PersistentState.PublishRecord], now: Date) -> Set<String>
    {
        Set(
            retention.retiredFiles(keeping: keeping, history: history).filter {
                now.timeIntervalSince($0.1) > gracePeriod
            }.map(\.0))
    }

    /// Compiles, in one batch, the lists whose exact bytes the previous set does not hold (those
    /// were gated when first published). Any rejection stops the publish: a list kept from an older
    /// layout would miss the rules and exceptions the layout moved into it.
    private func gateNewLists(_ lists: [PlannedList], previous: PublishedSet?) throws {
        guard let gate else { return }
        let known = previous?.content.files ?? [:]
        let pending = lists.filter { known[$0.fileName]?.sha256 != $0.sha256 }
        guard !pending.isEmpty else { return }
        let asRules = pending.map { RuleList(id: $0.id, json: $0.identity, ruleCount: $0.rules) }
        let rejections = zip(pending, gate.rejections(of: asRules)).compactMap { list, verdict in
            verdict.map { GateRejection(id: list.id, reason: $0) }
        }
        guard rejections.isEmpty else {
            for rejection in rejections {
                log.error("publish gate: WebKit rejected list \(rejection.id): \(rejection.reason)")
            }
            throw PublishError.gateRejected(rejections)
        }
    }

    /// The set after a publish, built from the plan and what the previous set still serves.
    private func successor(
        of previous: PublishedSet?, plan: PublishPlan, manifestChanged: Bool, removed: [String], now: Date
    ) -> PublishedSet {
        var files: [String: SiteContent.Entry] = [:]
        if let previous, previous.directory == writer.directory {
            files = previous.content.files
            for name in removed { files[name] = nil }
        }
        for list in plan.lists {
            files[list.fileName] = SiteContent.Entry(
                name: list.fileName, identity: list.identity, gzip: list.gzip, sha256: list.sha256,
                lastModified: files[list.fileName]?.lastModified ?? now)
            for patch in list.patches {
                files[patch.fileName] = SiteContent.Entry(
                    name: patch.fileName, identity: patch.bytes, gzip: nil, sha256: patch.sha256,
                    lastModified: files[patch.fileName]?.lastModified ?? now)
            }
        }
        let oldManifest = previous?.directory == writer.directory ? previous?.content.manifest : nil
        let manifestDate = !manifestChanged ? (oldManifest?.lastModified ?? now) : now
        let manifest = PublishedSet.manifestEntry(
            plan.manifest, sha256: plan.manifestSHA256, lastModified: manifestDate)
        return PublishedSet(
            directory: writer.directory, manifest: PublishPlan.manifest(plan.lists),
            content: SiteContent(manifest: manifest, files: files), layoutState: plan.layoutState)
    }

    package init(
        writer: SetWriter, gracePeriod: Double, gate: (any PublishGate)? = nil, log: Log, signer: ManifestSigner? = nil
    ) {
        self.writer = writer
        self.gracePeriod = gracePeriod
        self.gate = gate
        self.log = log
        self.signer = signer
    }
}
