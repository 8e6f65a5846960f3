import Converter
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
}

extension IsolatedLine {
    /// `source` dropped from `list`, whose rule from it WebKit rejected with `error`.
    package init(_ source: SourceLine, list: String, error: String) {
        self.init(upstream: source.upstream, line: source.line, text: source.text, list: list, error: error)
    }
}
