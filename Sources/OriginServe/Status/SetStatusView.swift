import Foundation
import OriginStore

/// `/status?set=<name>` for a set other than the default one: that set's own board (lists, last
/// refresh, isolated lines, history) with what all sets share (the upstreams it converts, the
/// signing key), and the server's activity seen from that set (its manifest, its files' dates).
struct SetStatusView {
    var status: OperatorStatus
    var activity: ServerActivity
    var history: [RefreshRecord]

    /// nil when no set other than the default one is named `name`.
    init?(set name: String, board: StatusBoard, activity: ServerActivity) {
        guard let served = activity.sets.first(where: { $0.name == name && !$0.isDefault }),
            let setBoard = board.sets[name]
        else { return nil }
        let shared = board.current
        var status = setBoard.current
        status.upstreams = shared.upstreams.filter { served.upstreams.contains($0.id) }
        status.signing = shared.signing
        status.signing?.generation = served.generation
        status.signing?.expires = nil  // the shared board's is the default set's
        self.status = status
        history = setBoard.history?.current ?? []
        var view = activity
        let prefix = "sets/\(name)/"
        view.fileDates = Dictionary(
            activity.fileDates.compactMap {
                $0.key.hasPrefix(prefix) ? (String($0.key.dropFirst(prefix.count)), $0.value) : nil
            },
            uniquingKeysWith: { first, _ in first })
        view.manifestInstalled = served.manifestSHA256 != nil
        view.servedManifestSHA256 = served.manifestSHA256
        view.servedManifestPublishedAt = served.publishedAt
        self.activity = view
    }
}
