import Foundation

/// An ABP line dropped because WebKit rejected the rules it became, with WebKit's error.
package struct IsolatedLine: Sendable, Equatable, Codable {
    package var upstream: String
    /// 1-based, in the upstream copy as fetched.
    package var line: Int
    package var text: String
    /// The list WebKit rejected.
    package var list: String
    package var error: String

    package init(upstream: String, line: Int, text: String, list: String, error: String) {
        self.upstream = upstream
        self.line = line
        self.text = text
        self.list = list
        self.error = error
    }
}
