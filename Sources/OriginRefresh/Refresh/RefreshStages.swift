import Converter
import Foundation
import OriginConfig
import OriginStore
import PublicSuffix

/// The stages of one refresh, wired from the configuration: `FetchStage` (fetch every upstream,
/// keep good copies) → `ConvertStage` (convert, gate) → `Publisher` (publish), and the reporting
/// of each outcome. Shared by `serve` (through `RefreshSource`) and `fetch`.
package struct RefreshStages: Sendable {
    package var resolved: ResolvedConfiguration
    package var store: StateStore
    package var publisher: Publisher
    var fetchStage: FetchStage
    package var reporting: RefreshReporting
    /// The operator's acceptance of a publish the compile-time regression gate holds (admin endpoint).
    package let compileAcceptance = CompileRegressionAcceptance()

    package init(
        resolved: ResolvedConfiguration, status: StatusBoard, log: Log, gate: (any PublishGate)?,
        signer: ManifestSigner? = nil, publicSuffixes: PublicSuffixList? = nil
    ) {
        self.resolved = resolved
        let configuration = resolved.configuration
        store = StateStore(directory: resolved.stateDirectory)
        publisher = Publisher(
            writer: SetWriter(directory: resolved.publicDirectory),
            gracePeriod: configuration.publish.gracePeriodSeconds, gate: gate, log: log.child("publish"),
            signer: signer)
        let acceptance = compileAcceptance
        publisher.compileRegression = gate.map {
            CompileRegressionGate(
                gate: $0, maxRatio: configuration.publish.compileRegressionRatio,
                rounds: configuration.publish.compileRegressionRounds, acceptance: acceptance)
        }
        let converter = ListConverter(configuration: Self.converterConfiguration(configuration.conversion))
        let refreshLog = log.child("refresh")
        var convertStage = ConvertStage(
            configuration: configuration.restricted(to: configuration.defaultSet),
            baseDirectory: resolved.baseDirectory,
            store: store, publisher: publisher, converter: converter, log: refreshLog)
        convertStage.converter.configuration.target = configuration.defaultSet.conversionTarget
        convertStage.converter.configuration.publicSuffixes = publicSuffixes
        fetchStage = FetchStage(
            configuration: configuration, store: store, fetcher: CurlFetcher(configuration: configuration.fetch),
            convertStage: convertStage, log: refreshLog)
        reporting = RefreshReporting(
            status: status, log: refreshLog,
            history: RefreshHistory(store: RefreshHistoryStore(directory: resolved.stateDirectory), log: refreshLog),
            compileTimes: gate?.compileTimes)
    }

    /// Debian's Public Suffix List when a set's target needs registrable domains, else nil: an origin
    /// of `safari-17` sets runs without the package.
    package static func publicSuffixes(for resolved: ResolvedConfiguration) throws(PublicSuffixFileError)
        -> PublicSuffixList?
    {
        let targets = ([resolved.configuration.defaultSet] + resolved.otherSets).map(\.conversionTarget)
        return targets.contains(where: \.needsPublicSuffixes) ? try PublicSuffixFile.load() : nil
    }

    /// What `config.json`'s `conversion` section asks of the converter; `convert`'s flags map to the same fields.
    package static func converterConfiguration(_ conversion: Configuration.Conversion) -> ConverterConfiguration {
        var configuration = ConverterConfiguration(chunkSize: conversion.chunkSize, maxLists: conversion.maxLists)
        configuration.settingNames = .init(
            chunkSize: "conversion.chunkSize in config.json", maxLists: "conversion.maxLists in config.json")
        configuration.removalGraceRuns = conversion.removalGraceRuns
        // Batching removals and promoting recent rules into lists that change anyway go together.
        configuration.promotesRecentIntoChangedLists = conversion.removalGraceRuns > 0
        return configuration
    }

    /// Runs one refresh and reports it (status, metrics, logs). `published` becomes the new set.
    package func run(_ mode: FetchStage.Mode, state: inout PersistentState, published: inout PublishedSet?)
        -> RefreshOutcome
    {
        var none: [OtherSet] = []
        return run(mode, state: &state, published: &published, others: &none)
    }

    /// Runs one refresh of every set and reports it; each set's `published` becomes its new set.
    package func run(
        _ mode: FetchStage.Mode, state: inout PersistentState, published: inout PublishedSet?,
        others: inout [OtherSet]
    ) -> RefreshOutcome {
        var outcome = fetchStage.run(mode, state: &state, published: &published, others: &others)
        let withSites = publishUnprotectedSites(state: &state, published: &published, others: &others)
        if let set = withSites.default { outcome.published = set }
        for index in outcome.otherSets.indices {
            if let set = withSites.others[outcome.otherSets[index].name] { outcome.otherSets[index].published = set }
        }
        reporting.report(outcome)
        for (index, other) in outcome.otherSets.enumerated() where others.indices.contains(index) {
            others[index].reporting.report(other.outcome)
        }
        return outcome
    }

    /// The set the public directory holds now (the restart path: read and checked once).
    package func loadPublished(history: [PersistentState.PublishRecord]) throws -> PublishedSet {
        try publisher.loader.load(history: history)
    }
}
