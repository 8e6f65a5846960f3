import Foundation
import OriginConfig
import OriginStore

/// A set other than the default one, as a refresh carries it: its own state (publish history,
/// the sources it was built from) in `<stateDir>/sets/<name>/`, its own published set in
/// `<publicDir>/sets/<name>/`, the `ConvertStage` that converts its upstreams for its target, and
/// its own reporting (status board and refresh history). Upstream copies are not its own: the
/// cycle fetches each upstream once, and every set converts from the same bytes.
package struct OtherSet: Sendable {
    package var definition: ListSetDefinition
    package var store: StateStore
    var convertStage: ConvertStage
    package var state: PersistentState
    package var published: PublishedSet?
    /// This set's /status board (in the default board's `sets`) and its refresh history.
    package var reporting: RefreshReporting
    package var publisher: Publisher { convertStage.publisher }
}

/// What a refresh did to one set other than the default one.
package struct OtherSetOutcome: Sendable {
    package var name: String
    /// The set's own refresh: no upstream reports (the default set's outcome has them).
    package var outcome: RefreshOutcome
    package var set: SetOutcome { outcome.set }
    /// The set now published, when it changed; nil otherwise.
    package var published: PublishedSet? {
        get { outcome.published }
        set { outcome.published = newValue }
    }
    /// Its `state.json` could not be saved.
    var stateSaveError: StateError? { outcome.stateSaveError }

    /// The set's problem, for the refresh's error; nil when it published or stayed as it was.
    var problem: String? {
        if case .failed(let failure) = set { return "set \(name): \(failure)" }
        return stateSaveError.map { "set \(name): \($0)" }
    }
}

extension OtherSet {
    /// Converts and publishes this set when its upstream copies changed. The shared upstream
    /// records (`shared.upstreams`) are the ones in use; a snapshot taken into use here is recorded
    /// there too. A failure keeps this set's published version and touches no other set.
    mutating func refresh(
        shared: inout PersistentState, mode: FetchStage.Mode, now: Date,
        deadline: (String) -> SetFailure?
    ) -> OtherSetOutcome {
        state.upstreams = shared.upstreams
        var outcome = RefreshOutcome(mode: mode, startedAt: now)
        convertStage.convertIfNeeded(
            state: &state, published: &published, outcome: &outcome, now: now, deadline: deadline)
        shared.upstreams = state.upstreams
        do {
            try store.save(state)
        } catch {
            outcome.stateSaveError = error
        }
        return OtherSetOutcome(name: definition.name, outcome: outcome)
    }
}
