import Converter
import Foundation
import OriginConfig
import OriginStore

/// The refresh side of the server, wired from the configuration: state store, fetcher, converter,
/// publish gate, publisher, and the reporting of each outcome. Shared by `serve` and `fetch`.
package struct Pipeline: Sendable {
    package var resolved: ResolvedConfiguration
    package var store: StateStore
    package var publisher: Publisher
    var cycle: RefreshCycle
    package var reporting: RefreshReporting

    package init(resolved: ResolvedConfiguration, status: StatusBoard, log: Log, gate: (any PublishGate)?, signer: ManifestSigner? = nil) {
        self.resolved = resolved
        let configuration = resolved.configuration
        store = StateStore(directory: resolved.stateDirectory)
        publisher = Publisher(writer: SetWriter(directory: resolved.publicDirectory),
                              gracePeriod: configuration.publish.gracePeriodSeconds, gate: gate, log: log.child("publish"),
                              signer: signer)
        let converter = ListConverter(configuration: Self.converterConfiguration(configuration.conversion))
        let refreshLog = log.child("refresh")
        var setRefresh = SetRefresh(configuration: configuration.restricted(to: configuration.defaultSet), baseDirectory: resolved.baseDirectory,
                                    store: store, publisher: publisher, converter: converter, log: refreshLog)
        setRefresh.target = configuration.defaultSet.target
        cycle = RefreshCycle(configuration: configuration, store: store, fetcher: CurlFetcher(configuration: configuration.fetch),
                             setRefresh: setRefresh, log: refreshLog)
        reporting = RefreshReporting(status: status, log: refreshLog,
                                     history: RefreshHistory(store: RefreshHistoryStore(directory: resolved.stateDirectory), log: refreshLog),
                                     compileTimes: gate?.compileTimes)
    }

    /// What `config.json`'s `conversion` section asks of the converter; `convert`'s flags map to the same fields.
    package static func converterConfiguration(_ conversion: Configuration.Conversion) -> ConverterConfiguration {
        var configuration = ConverterConfiguration(chunkSize: conversion.chunkSize, maxLists: conversion.maxLists)
        configuration.removalGraceRuns = conversion.removalGraceRuns
        // Batching removals and promoting recent rules into lists that change anyway go together.
        configuration.promotesRecentIntoChangedLists = conversion.removalGraceRuns > 0
        return configuration
    }

    /// Runs one refresh and reports it (status, metrics, logs). `published` becomes the new set.
    package func run(_ mode: RefreshCycle.Mode, state: inout PersistentState, published: inout PublishedSet?) -> RefreshOutcome {
        var none: [OtherSet] = []
        return run(mode, state: &state, published: &published, others: &none)
    }

    /// Runs one refresh of every set and reports it; each set's `published` becomes its new set.
    package func run(_ mode: RefreshCycle.Mode, state: inout PersistentState, published: inout PublishedSet?,
                     others: inout [OtherSet]) -> RefreshOutcome {
        let outcome = cycle.run(mode, state: &state, published: &published, others: &others)
        reporting.report(outcome)
        return outcome
    }

    /// The set the public directory holds now (the restart path: read and checked once).
    package func loadPublished(history: [PersistentState.PublishRecord]) throws -> PublishedSet {
        try publisher.loader.load(history: history)
    }
}
