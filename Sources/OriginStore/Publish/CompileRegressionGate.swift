import Converter
import Foundation

/// Holds a publish whose new list versions compile much slower in WebKit than the versions they
/// replace: every phone pays that compile. Each new version and the one it replaces are compiled
/// in the same gate run, alternating (new, old, then old, new, …) so that machine noise falls on
/// both; the medians are compared per list and summed over the compared lists.
package struct CompileRegressionGate: Sendable {
    /// One list's figures.
    package struct ListComparison: Sendable, Equatable, Codable {
        package var id: String
        /// Nil for a list id the previous set does not have (it counts in the set's sum only).
        package var previousSeconds: Double?
        package var newSeconds: Double
        package var ratio: Double?
        package var held: Bool
    }

    /// The comparison of one publish, shown on the status page.
    package struct Comparison: Sendable, Equatable, Codable {
        package var lists: [ListComparison]
        package var previousSeconds: Double
        package var newSeconds: Double
        package var setRatio: Double
        package var maxRatio: Double
        package var held: Bool
        /// Whether an operator's acceptance let a held comparison through.
        package var accepted = false
        /// ABP lines behind the rules the held lists gained, first `addedLinesShown` of them.
        package var addedLines: [SourceLine] = []
        package var addedLineCount = 0
        /// Names the held new versions (their hashes), for the operator's acceptance.
        package var candidate: String
    }

    /// A slowdown smaller than this is scheduling noise, not a cost a phone feels: it is shown but
    /// never holds a publish.
    package static let noiseFloorSeconds = 0.05
    package static let addedLinesShown = 20

    package var gate: any PublishGate
    /// `publish.compileRegressionRatio`: hold above this ratio (0: never compare).
    package var maxRatio: Double
    /// Compiles of each version per comparison.
    package var rounds: Int
    package var acceptance: CompileRegressionAcceptance

    package init(gate: any PublishGate, maxRatio: Double, rounds: Int, acceptance: CompileRegressionAcceptance) {
        self.gate = gate
        self.maxRatio = maxRatio
        self.rounds = rounds
        self.acceptance = acceptance
    }

    /// Compares the new set `lists` with `previous`: per list, each new version against the one it
    /// replaces; for the set, every list's compile time summed, unchanged lists measured once and
    /// counted on both sides. Nil when no list is new or the gate does not time compiles.
    package func compare(_ lists: [PlannedList], previous: PublishedSet, provenance: ConversionProvenance)
        -> Comparison?
    {
        guard maxRatio > 0 else { return nil }
        let oldFiles = Dictionary(
            previous.manifest.lists.map { ($0.id, $0.file) }, uniquingKeysWith: { first, _ in first })
        let changed = lists.filter { oldFiles[$0.id] != $0.fileName }
        guard !changed.isEmpty else { return nil }
        let newIDs = Set(lists.map(\.id))
        func rule(_ id: String, _ bytes: [UInt8]) -> RuleList { RuleList(id: id, json: bytes, ruleCount: 0) }
        let newVersions = changed.map { rule($0.id, $0.identity) }
        let changedIDs = Set(changed.map(\.id))
        let oldVersions = previous.manifest.lists.filter { !newIDs.contains($0.id) || changedIDs.contains($0.id) }
            .compactMap { entry in
                previous.content.files[entry.file].map { rule(entry.id + Self.previousSuffix, $0.identity) }
            }
        let unchanged = lists.filter { oldFiles[$0.id] == $0.fileName }.map { rule($0.id, $0.identity) }
        var batch = unchanged
        for round in 0..<max(1, rounds) {
            batch += round.isMultiple(of: 2) ? newVersions + oldVersions : oldVersions + newVersions
        }
        let times = gate.compileSeconds(of: batch)
        guard times.count == batch.count, !times.contains(where: { $0 == nil }) else { return nil }
        var samples: [String: [Double]] = [:]
        for (list, seconds) in zip(batch, times) { samples[list.id, default: []].append(seconds ?? 0) }
        let median = samples.mapValues(Self.median)
        let unchangedSeconds = unchanged.reduce(0) { $0 + (median[$1.id] ?? 0) }
        var compared: [ListComparison] = []
        for list in changed {
            let new = median[list.id] ?? 0
            let old = oldFiles[list.id] == nil ? nil : median[list.id + Self.previousSuffix]
            let ratio = old.map { $0 > 0 ? new / $0 : 1 }
            compared.append(
                ListComparison(
                    id: list.id, previousSeconds: old, newSeconds: new, ratio: ratio,
                    held: (ratio ?? 0) > maxRatio && new - (old ?? 0) >= Self.noiseFloorSeconds))
        }
        let oldSum = unchangedSeconds + oldVersions.reduce(0) { $0 + (median[$1.id] ?? 0) }
        let newSum = unchangedSeconds + compared.reduce(0) { $0 + $1.newSeconds }
        let setRatio = oldSum > 0 ? newSum / oldSum : 1
        let setHeld = setRatio > maxRatio && newSum - oldSum >= Self.noiseFloorSeconds
        let candidate = changed.map { "\($0.id).\($0.sha256.prefix(12))" }.joined(separator: ",")
        var comparison = Comparison(
            lists: compared, previousSeconds: oldSum, newSeconds: newSum, setRatio: setRatio, maxRatio: maxRatio,
            held: setHeld || compared.contains(where: \.held), candidate: candidate)
        if comparison.held {
            let culprits = changed.filter { list in setHeld || compared.contains { $0.id == list.id && $0.held } }
            let added = culprits.flatMap { list in
                Self.addedLines(
                    new: list, old: oldFiles[list.id].flatMap { previous.content.files[$0]?.identity } ?? [],
                    provenance: provenance)
            }
            comparison.addedLineCount = added.count
            comparison.addedLines = Array(added.prefix(Self.addedLinesShown))
            comparison.accepted = acceptance.isAccepted(candidate)
            if !comparison.accepted { acceptance.hold(candidate) }
        }
        return comparison
    }

    /// Marks a previous version's id in a comparison batch (no list id has a dot).
    private static let previousSuffix = ".previous"

    /// The ABP lines behind the rules `new` has and `old` has not.
    private static func addedLines(new: PlannedList, old: [UInt8], provenance: ConversionProvenance) -> [SourceLine] {
        guard let newRules = PoisonIsolation.rules(of: new.identity) else { return [] }
        let oldRules = Set((PoisonIsolation.rules(of: old) ?? []).map(Array.init))
        let gained = newRules.indices.filter { !oldRules.contains(Array(newRules[$0])) }
        return provenance.sourceLines(ofList: new.id, rules: gained) ?? []
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count.isMultiple(of: 2)
            ? (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2 : sorted[sorted.count / 2]
    }
}

/// The operator's word on held publishes, shared by the admin endpoint (writer) and the refresh:
/// `POST /admin/accept-compile-time` accepts the publish held last, by its new versions' hashes, so a
/// later upstream change is compared again.
package final class CompileRegressionAcceptance: @unchecked Sendable {
    private let lock = NSLock()
    private var held: String?
    private var accepted: Set<String> = []

    package init() {}

    package func hold(_ candidate: String) { lock.withLock { held = candidate } }

    package func isAccepted(_ candidate: String) -> Bool { lock.withLock { accepted.contains(candidate) } }

    /// Accepts the publish held last; returns its candidate (nil: nothing is held).
    @discardableResult
    package func acceptHeld() -> String? {
        lock.withLock {
            guard let candidate = held else { return nil }
            accepted.insert(candidate)
            held = nil
            return candidate
        }
    }
}

extension CompileRegressionGate.Comparison {
    /// What the refresh error says when this comparison holds a publish: the figures, the lines
    /// added, and the two ways to let it through.
    package var heldDescription: String {
        let lists = self.lists.filter(\.held).map {
            "\($0.id) \(Self.ratio($0.ratio ?? 0)) (\(Self.seconds($0.newSeconds)) against \(Self.seconds($0.previousSeconds ?? 0)))"
        }
        var text = "publish held: new versions compile slower in WebKit than the versions they replace"
        if !lists.isEmpty { text += ": " + lists.joined(separator: ", ") }
        text +=
            "; whole set \(Self.ratio(setRatio)) (\(Self.seconds(newSeconds)) against \(Self.seconds(previousSeconds))), limit \(Self.ratio(maxRatio)) (publish.compileRegressionRatio)"
        if addedLineCount > 0 {
            text +=
                "; \(addedLineCount) ABP lines added, first: "
                + addedLines.prefix(5).map { "\($0.upstream):\($0.line) \($0.text.prefix(120))" }.joined(
                    separator: " | ")
        }
        return text
            + "; to publish it, POST /admin/accept-compile-time with the admin token, or raise publish.compileRegressionRatio; the published set stays until then"
    }

    package static func ratio(_ value: Double) -> String { String(format: "%.2f×", value) }
    package static func seconds(_ value: Double) -> String { String(format: "%.3f s", value) }
}
