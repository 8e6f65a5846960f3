import Converter
import Foundation

/// The refresh side of the server, wired from the configuration: state store, fetcher, converter,
/// publish gate, publisher, and the reporting of each outcome. Shared by `serve` and `fetch`.
struct Pipeline: Sendable {
    var resolved: ResolvedConfiguration
    var store: StateStore
    var publisher: Publisher
    var cycle: RefreshCycle
    var reporting: RefreshReporting
    /// The operator's acceptance of a publish the compile-time regression gate holds (admin endpoint).
    let compileAcceptance = CompileRegressionAcceptance()

    init(resolved: ResolvedConfiguration, status: StatusBoard, log: Log, gate: (any PublishGate)?, signer: ManifestSigner? = nil) {
        self.resolved = resolved
        let configuration = resolved.configuration
        store = StateStore(directory: resolved.stateDirectory)
        publisher = Publisher(writer: SetWriter(directory: resolved.publicDirectory),
                              gracePeriod: configuration.publish.gracePeriodSeconds, gate: gate, log: log.child("publish"),
                              signer: signer)
        let acceptance = compileAcceptance
        publisher.compileRegression = gate.map {
            CompileRegressionGate(gate: $0, maxRatio: configuration.publish.compileRegressionRatio,
                                  rounds: configuration.publish.compileRegressionRounds, acceptance: acceptance)
        }
        let converter = ListConverter(configuration: Self.converterConfiguration(configuration.conversion))
        let refreshLog = log.child("refresh")
        let setRefresh = SetRefresh(configuration: configuration, baseDirectory: resolved.baseDirectory, store: store,
                                    publisher: publisher, converter: converter, log: refreshLog)
        cycle = RefreshCycle(configuration: configuration, store: store, fetcher: CurlFetcher(configuration: configuration.fetch),
                             setRefresh: setRefresh, log: refreshLog)
        reporting = RefreshReporting(status: status, log: refreshLog,
                                     history: RefreshHistory(store: RefreshHistoryStore(directory: resolved.stateDirectory), log: refreshLog),
                                     compileTimes: gate?.compileTimes)
    }

    /// What `config.json`'s `conversion` section asks of the converter; `convert`'s flags map to the same fields.
    static func converterConfiguration(_ conversion: Configuration.Conversion) -> ConverterConfiguration {
        var configuration = ConverterConfiguration(chunkSize: conversion.chunkSize, maxLists: conversion.maxLists)
        configuration.removalGraceRuns = conversion.removalGraceRuns
        // Batching removals and promoting recent rules into lists that change anyway go together.
        configuration.promotesRecentIntoChangedLists = conversion.removalGraceRuns > 0
        return configuration
    }

    /// Runs one refresh and reports it (status, metrics, logs). `published` becomes the new set.
    func run(_ mode: RefreshCycle.Mode, state: inout PersistentState, published: inout PublishedSet?) -> RefreshOutcome {
        let outcome = cycle.run(mode, state: &state, published: &published)
        reporting.report(outcome)
        return outcome
    }

    /// The set the public directory holds now (the restart path: read and checked once).
    func loadPublished(history: [PersistentState.PublishRecord]) throws -> PublishedSet {
        try publisher.loader.load(history: history)
    }
}
