import Foundation

/// The one mutable thing every event loop answers from: the current generation, swapped whole
/// under a lock so each request sees exactly one generation.
final class SiteSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var site = StaticSite(resources: [])

    var current: StaticSite {
        lock.lock()
        defer { lock.unlock() }
        return site
    }

    func install(_ prepared: StaticSite) {
        lock.lock()
        site = prepared
        lock.unlock()
    }
}
