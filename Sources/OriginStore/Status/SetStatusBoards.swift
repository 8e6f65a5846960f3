import Foundation

/// The status of each set other than the default one, by set name: its own lists, last refresh,
/// isolated lines, refresh history and (on a follower) follow status, written by that set's
/// refresh or follow loop and read by `/status?set=<name>`, `/status`'s `sets[]` and `/metrics`.
/// The default set's status is the `StatusBoard` that holds these.
package final class SetStatusBoards: @unchecked Sendable {
    private let lock = NSLock()
    private var boards: [String: StatusBoard] = [:]

    package init() {}

    /// The board of `name`, made on first use (a set a follower picks up later gets one then).
    package func board(for name: String) -> StatusBoard {
        lock.lock()
        defer { lock.unlock() }
        if let board = boards[name] { return board }
        let board = StatusBoard()
        boards[name] = board
        return board
    }

    /// The board of `name` when that set has one.
    package subscript(name: String) -> StatusBoard? {
        lock.lock()
        defer { lock.unlock() }
        return boards[name]
    }
}
