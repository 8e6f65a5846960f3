import Dispatch

/// Runs independent pieces of work on every core and gives their results back in order, so the
/// output never depends on which core finished first.
public enum Parallel {
    /// `(0..<count).map(body)`, the calls spread over the cores. `body` must touch no shared mutable state.
    public static func map<T>(_ count: Int, _ body: (Int) -> T) -> [T] {
        guard count > 1 else { return (0..<count).map(body) }
        var slots = [T?](repeating: nil, count: count)
        slots.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            // Each iteration writes only its own slot.
            DispatchQueue.concurrentPerform(iterations: count) { index in base[index] = body(index) }
        }
        return slots.map { $0! }
    }

}
