import Foundation
import OriginStore

extension RefreshRecord {
    /// The record of one refresh. `previous` are the lists devices held before it (the status
    /// board's lists when the refresh started); `compiled` the gate's compile seconds by list id.
    package init(_ outcome: RefreshOutcome, previous: [OperatorStatus.ListStatus], compiled: [String: Double]) {
        let published: Publisher.Outcome? = if case .published(let publish, _) = outcome.set { publish } else { nil }
        self.init(
            at: outcome.startedAt, result: outcome.result, published: published, previous: previous,
            compiled: compiled)
    }
}
