import Foundation
import OriginConfig
import OriginStore

extension RefreshStages {
    /// Brings the default set's served manifest in line with the config and the admin edits; see
    /// `publishUnprotectedSites(state:published:others:change:now:)`.
    package func publishUnprotectedSites(
        state: inout PersistentState, published: inout PublishedSet?,
        change: UnprotectedSiteChange? = nil, now: Date = Date()
    ) -> PublishedSet? {
        var none: [OtherSet] = []
        return publishUnprotectedSites(state: &state, published: &published, others: &none, change: change, now: now)
            .default
    }

    /// Brings every set's served manifest in line with the config and the admin edits (after
    /// applying `change`, if any, and keeping it in `stateDir`): a device reads them from whichever
    /// set it follows. Returns the sets whose manifest was published (the default one apart, others
    /// by name); a set with nothing published yet carries the sites from its next publish.
    package func publishUnprotectedSites(
        state: inout PersistentState, published: inout PublishedSet?, others: inout [OtherSet],
        change: UnprotectedSiteChange? = nil, now: Date = Date()
    ) -> (default: PublishedSet?, others: [String: PublishedSet]) {
        let log = reporting.log
        var edits: UnprotectedSiteEdits
        do {
            edits = try store.loadUnprotectedSiteEdits()
            if let change {
                edits.apply(change)
                try store.saveUnprotectedSiteEdits(edits)
                log.info("unprotected sites: \(change)")
            }
        } catch {
            log.error("unprotected sites unchanged: \(error)")
            return (nil, [:])
        }
        let sites = edits.effective(configured: resolved.configuration.unprotectedSites)
        let defaultSet = carry(
            sites, publisher: publisher, store: store, state: &state, published: &published, now: now)
        var changed: [String: PublishedSet] = [:]
        for index in others.indices {
            var other = others[index]
            changed[other.definition.name] = carry(
                sites, publisher: other.publisher, store: other.store, state: &other.state,
                published: &other.published, now: now)
            others[index] = other
        }
        return (defaultSet, changed)
    }

    /// Publishes one set's manifest with `sites` when it carries others; nil when it already does
    /// or nothing is published yet.
    private func carry(
        _ sites: [String], publisher: Publisher, store: StateStore, state: inout PersistentState,
        published: inout PublishedSet?, now: Date
    ) -> PublishedSet? {
        guard let current = published else { return nil }
        do {
            guard
                let next = try publisher.publishUnprotectedSites(
                    sites, over: current, history: &state.history, now: now)
            else { return nil }
            published = next
            try store.save(state)
            return next
        } catch {
            publisher.log.error(
                "publishing the unprotected sites failed: \(error); the served manifest stays, retried at the next refresh"
            )
            return nil
        }
    }
}
