import Converter

/// The bounds a setting may take, whether it comes from `config.json` or a command-line flag, so
/// `serve`, `fetch` and `convert` refuse the same values with the same reason.
package enum ConfigurationLimits {
    /// 0 picks a free port.
    package static let port = 0...65_535
    /// Up to WebKit's limit on rules per compiled list.
    package static let chunkSize = 1...WebKitLimits.rulesPerList
    package static let removalGraceRuns = 0...365
    /// `convert --grace-period`, in seconds (ten years).
    package static let gracePeriodSeconds = 0...(10 * 365 * 86_400)
}
