/// Immutable bytes at a stable address, shared by reference between a prepared generation and
/// the output queues that send them. Stable addresses let one `writev` gather heads and bodies of
/// several responses without copying, and a queue holding a reference keeps an old generation's
/// body alive until its in-flight response is sent.
final class ResponseBytes: @unchecked Sendable {
    let base: UnsafeMutablePointer<UInt8>
    let count: Int
    /// Set when the bytes live in a retained array instead of our own allocation.
    private let retainedArray: [UInt8]?

    /// Copies `bytes` (heads and other small pieces).
    init(_ bytes: [UInt8]) {
        count = bytes.count
        retainedArray = nil
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, bytes.count))
        bytes.withUnsafeBufferPointer { source in
            if let address = source.baseAddress { base.initialize(from: address, count: source.count) }
        }
    }

    /// Shares a published body without copying it, so a generation costs its files' size once,
    /// not twice. The array is held in an immutable stored property and never mutated, so its
    /// contiguous storage (which the array's buffer owns) cannot move while this object lives.
    init(sharing bytes: [UInt8]) {
        count = bytes.count
        if bytes.isEmpty {
            retainedArray = nil
            base = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        } else {
            retainedArray = bytes
            base = bytes.withUnsafeBufferPointer { UnsafeMutablePointer(mutating: $0.baseAddress!) }
        }
    }

    convenience init(_ text: String) {
        self.init(Array(text.utf8))
    }

    deinit {
        if retainedArray == nil { base.deallocate() }
    }
}
