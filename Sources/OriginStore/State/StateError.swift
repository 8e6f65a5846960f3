import Foundation

/// A problem with the state directory, worded so the operator knows what to do.
package enum StateError: Error, CustomStringConvertible, Equatable {
    /// `state.json` was written by a newer server.
    case newerVersion(path: String, found: Int, supported: Int)
    case unreadable(path: String, reason: String)
    case write(path: String, reason: String)

    package var description: String {
        switch self {
        case .newerVersion(let path, let found, let supported):
            return
                "\(path) has state version \(found), but this server reads versions up to \(supported); run a newer listserver or point stateDir at another directory"
        case .unreadable(let path, let reason):
            return
                "\(path) cannot be read (\(reason)); fix it or move it aside to start with empty state (the published set in the public directory is kept)"
        case .write(let path, let reason):
            return
                "cannot write \(path) (\(reason)); check that the state directory exists, is writable and has free space"
        }
    }
}
