import Foundation

/// Validators of a copy, sent back on the next fetch so an unchanged upstream answers 304.
package struct Validators: Sendable, Equatable, Codable {
    package var etag: String?
    package var lastModified: String?
}

/// The outcome of one successful HTTP exchange with an upstream.
package enum FetchResult: Sendable, Equatable {
    /// 304: the copy we hold is current (RFC 9110 §15.4.5).
    case notModified
    /// 200 with a complete, decoded body within the size cap.
    case body([UInt8], Validators)
}
