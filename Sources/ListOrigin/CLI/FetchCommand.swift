import Foundation
import OriginConfig
import OriginRefresh
import OriginStore

/// `listserver fetch`: one refresh from the command line (fetch → convert → verify gate → publish).
enum FetchCommand: Command {
    static let name = "fetch"
    static let summary = "refresh once: fetch upstreams, convert, verify and publish, then exit"
    static let synopsis = "[--config PATH]"
    static let flags: [FlagSpec] = [
        FlagSpec(name: "--config", takesValue: true, help: "config file (default ./config.json)")
    ]

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        let log = Log(label: "listserver")
        let resolved = try ResolvedConfiguration.load(path: arguments.value("--config") ?? "config.json")
        let gate = try GateSelection.make(
            setting: resolved.configuration.publish.verifyWithWebKit, log: log.child("verify"))
        let status = StatusBoard()
        let signer = try SigningSetup.signer(for: resolved, log: log.child("signing"))
        let pipeline = RefreshStages(
            resolved: resolved, status: status, log: log, gate: gate, signer: signer,
            publicSuffixes: try RefreshStages.publicSuffixes(for: resolved))
        var state = try pipeline.store.load()
        pipeline.reporting.seed(upstreams: resolved.configuration.upstreams, state: state)
        pipeline.publisher.writer.removeStaleTempFiles()
        var published = try? pipeline.loadPublished(history: state.history)
        var others = try pipeline.loadOtherSets()
        let outcome = pipeline.run(.online, state: &state, published: &published, others: &others)
        let current = status.current
        for upstream in current.upstreams {
            print(
                "\(upstream.id): \(upstream.lastResult ?? "-") (source \(upstream.source)\(upstream.sourceDate.map { " " + $0 } ?? ""))"
                    + (upstream.lastError.map { ": " + $0 } ?? ""))
        }
        // Exit 1 when any upstream could not be refreshed, even if a set was (re)published from older copies.
        let allFetched = outcome.upstreams.allSatisfy(\.outcome.isCurrent)
        switch outcome.result {
        case .published:
            print(
                "published manifest \(current.manifestSHA256 ?? "?") with \(current.lists.count) lists into \(resolved.publicDirectory)"
            )
            for other in outcome.otherSets {
                if let set = other.published {
                    print("published set \(other.name) manifest \(set.manifestSHA256 ?? "?") into \(set.directory)")
                }
            }
            return allFetched ? 0 : 1
        case .unchanged:
            print("unchanged: the published set is current")
            return allFetched ? 0 : 1
        case .failed(let reason):
            ListServerCommandLine.printError("listserver fetch: \(reason)")
            return 1
        }
    }
}
