import Foundation
import OriginConfig
import OriginStore

extension RefreshStages {
    /// Brings the served manifest's unprotected sites in line with the config and the admin edits
    /// (after applying `change`, if any, and keeping it in `stateDir`). Returns the new set when a
    /// manifest was published; with nothing published yet, the next publish carries the sites.
    package func publishUnprotectedSites(
        state: inout PersistentState, published: inout PublishedSet?,
        change: UnprotectedSiteChange? = nil, now: Date = Date()
    ) -> PublishedSet? {
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
            return nil
        }
        guard let current = published else { return nil }
        let sites = edits.effective(configured: resolved.configuration.unprotectedSites)
        do {
            guard
                let next = try publisher.publishUnprotectedSites(
                    sites, over: current, history: &state.history, now: now)
            else { return nil }
            published = next
            try store.save(state)
            return next
        } catch {
            log.error(
                "publishing the unprotected sites failed: \(error); the served manifest stays, retried at the next refresh"
            )
            return nil
        }
    }
}
