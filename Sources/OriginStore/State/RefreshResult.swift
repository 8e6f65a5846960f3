/// How a refresh ended, as `/status` and the history name it.
package enum RefreshResult: Sendable, Equatable {
    case published
    case unchanged
    case failed(String)

    /// The value of `/status` `lastRefresh.result`.
    package var label: String {
        switch self {
        case .published: return "published"
        case .unchanged: return "unchanged"
        case .failed: return Self.failedLabel
        }
    }

    package static let failedLabel = "failed"
}
