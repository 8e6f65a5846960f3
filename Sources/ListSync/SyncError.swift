import Foundation

/// Why a sync failed. Every case leaves the previously synced set untouched, and every message
/// names the URL or path involved so an operator (or app log) can act on it.
public enum SyncError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The network request itself failed (DNS, connect, reset, timeout, body shorter than announced).
    case transport(url: String, reason: String)
    /// The manifest answered something other than 200 or 304.
    case manifestStatus(url: String, status: Int)
    /// The manifest body is not the JSON we publish.
    case manifestUnreadable(url: String, reason: String)
    /// A manifest format this client does not understand; a newer client is needed.
    case unknownManifestFormat(url: String, format: Int)
    /// The manifest is JSON of format 1 but an entry breaks its rules.
    case invalidManifestEntry(url: String, reason: String)
    /// A list file answered something other than 200.
    case fileStatus(url: String, status: Int)
    /// The bytes received do not hash to what the manifest promises (truncated, corrupted or stale).
    case hashMismatch(url: String, expected: String, actual: String, bytes: Int)
    /// The device's own store could not be read or written.
    case store(path: String, reason: String)
    /// A manifest or signature body passed its size cap; reading stopped there.
    case bodyTooLarge(url: String, limit: Int)

    public var description: String {
        switch self {
        case .transport(let url, let reason):
            return "request to \(url) failed: \(reason)"
        case .manifestStatus(let url, let status):
            return "manifest \(url) answered HTTP \(status) (expected 200 or 304); previous lists kept"
        case .manifestUnreadable(let url, let reason):
            return "manifest \(url) is not a valid manifest: \(reason); previous lists kept"
        case .unknownManifestFormat(let url, let format):
            return
                "manifest \(url) has format \(format), this client understands format 1 only; previous lists kept (update the client)"
        case .invalidManifestEntry(let url, let reason):
            return "manifest \(url) has an invalid entry: \(reason); previous lists kept"
        case .fileStatus(let url, let status):
            return "list file \(url) answered HTTP \(status) (expected 200); previous lists kept"
        case .hashMismatch(let url, let expected, let actual, let bytes):
            return
                "list file \(url): \(bytes) bytes hash to \(actual), manifest says \(expected) (truncated or stale copy?); previous lists kept"
        case .store(let path, let reason):
            return "local store \(path): \(reason)"
        case .bodyTooLarge(let url, let limit):
            return "\(url) sent more than \(limit) bytes, the cap for it; stopped reading, previous lists kept"
        }
    }
}
