import Converter
import Foundation

/// Compiles a list the way a device will before it is published. WebKit rejects a whole list for
/// one bad url-filter, so a list that fails here must never reach a manifest.
package protocol PublishGate: Sendable {
    /// nil when the list compiles; otherwise the compiler's reason.
    func rejection(of list: RuleList) -> String?
    /// One verdict per list, in order. Gates that can compile a batch in one go override this.
    func rejections(of lists: [RuleList]) -> [String?]
    /// Where a gate that measures compiles leaves each accepted list's compile time (nil: it does not).
    var compileTimes: CompileTimes? { get }
    /// WebKit compile seconds of each list, compiled one after the other in one run, in order (the
    /// compile-time regression gate alternates versions in one batch); nil for a list that failed,
    /// all nil from a gate that does not time compiles.
    func compileSeconds(of lists: [RuleList]) -> [Double?]
}

extension PublishGate {
    package func rejections(of lists: [RuleList]) -> [String?] { lists.map { rejection(of: $0) } }
    package var compileTimes: CompileTimes? { nil }
    package func compileSeconds(of lists: [RuleList]) -> [Double?] { lists.map { _ in nil } }
}

/// WebKit compile seconds of the lists a gate accepted since the last `take()`, by list id: what
/// a device spends compiling each new version (shown on the status page).
package final class CompileTimes: @unchecked Sendable {
    private let lock = NSLock()
    private var seconds: [String: Double] = [:]

    package init() {}

    package func record(_ id: String, seconds value: Double) {
        lock.lock()
        defer { lock.unlock() }
        seconds[id] = value
    }

    /// The times recorded since the last call, which starts afresh.
    package func take() -> [String: Double] {
        lock.lock()
        defer { lock.unlock() }
        let taken = seconds
        seconds = [:]
        return taken
    }
}
