/// Immutable bytes at a stable address, shared by reference between a prepared generation and
/// the output queues that send them. Stable addresses let one `writev` gather heads and bodies of
/// several responses without copying, and a queue holding a reference keeps an old generation's
/// body alive until its in-flight response is sent.
final class ResponseBytes: @unchecked Sendable {
    let base: UnsafeMutablePointer<UInt8>
    let count: Int

    init(_ bytes: [UInt8]) {
        count = bytes.count
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, bytes.count))
        bytes.withUnsafeBufferPointer { source in
            if let address = source.baseAddress { base.initialize(from: address, count: source.count) }
        }
    }

    convenience init(_ text: String) {
        self.init(Array(text.utf8))
    }

    deinit {
        base.deallocate()
    }
}
