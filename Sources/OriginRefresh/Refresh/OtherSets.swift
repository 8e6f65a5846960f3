import Foundation
import OriginConfig
import OriginStore

extension Configuration {
    /// This configuration as one set's conversion sees it: only the set's upstreams, in its order.
    package func restricted(to set: ListSetDefinition) -> Configuration {
        var restricted = self
        restricted.upstreams = upstreams(of: set)
        return restricted
    }
}

extension RefreshStages {
    /// The sets other than the default one, each with its state and its published set read from
    /// disk (a set never published yet starts empty and converts at the next refresh). Each set
    /// publishes through the default set's gate and signer into its own directory, and reports to
    /// its own board in the default board's `sets`, with its history in its state directory.
    package func loadOtherSets() throws -> [OtherSet] {
        let configuration = resolved.configuration
        return try resolved.otherSets.map { definition in
            let store = StateStore(directory: resolved.stateDirectory(of: definition))
            let state = try store.load()
            var publisher = self.publisher
            publisher.writer = SetWriter(directory: resolved.publicDirectory(of: definition))
            publisher.log = publisher.log.child(definition.name)
            publisher.writer.removeStaleTempFiles()
            var convertStage = fetchStage.convertStage
            convertStage.configuration = configuration.restricted(to: definition)
            convertStage.publisher = publisher
            convertStage.log = convertStage.log.child(definition.name)
            convertStage.converter.configuration.target = definition.conversionTarget
            let published = try? publisher.loader.load(history: state.history)
            let log = reporting.log.child(definition.name)
            let setReporting = RefreshReporting(
                status: reporting.status.sets.board(for: definition.name), log: log,
                history: RefreshHistory(store: RefreshHistoryStore(directory: store.directory), log: log))
            if let published { setReporting.recordLoaded(published) }
            return OtherSet(
                definition: definition, store: store, convertStage: convertStage, state: state, published: published,
                reporting: setReporting)
        }
    }
}
