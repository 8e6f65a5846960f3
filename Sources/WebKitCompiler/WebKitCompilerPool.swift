import Foundation

/// Up to `size` helpers, started on first use and kept for later batches, each compiling its share
/// of a batch at the same time: WebKit compiles one list on one core. A helper holds about 75 MB
/// after loading WebKit and 160 MB after compiling the 2025-10 set, so one left idle for
/// `idleSeconds` is stopped; the next batch starts a new one (about half a second).
public final class WebKitCompilerPool: @unchecked Sendable {
    public let helper: WebKitCompiler.Helper
    public let size: Int
    public let idleSeconds: Double
    private let lock = NSLock()
    private var idle: [(compiler: WebKitCompiler, since: DispatchTime)] = []

    public init(
        helper: WebKitCompiler.Helper, size: Int = ProcessInfo.processInfo.activeProcessorCount,
        idleSeconds: Double = 60
    ) {
        self.helper = helper
        self.size = max(1, size)
        self.idleSeconds = idleSeconds
    }

    /// Starts one helper (when none is idle) to learn whether WebKit loads here, and its version.
    public func probe() throws(WebKitCompileFailure) -> String {
        let compiler = try checkOut()
        defer { checkIn(compiler) }
        return compiler.webKitVersion
    }

    /// One verdict per list, in order. A share whose helper fails gets that failure as every
    /// list's error (so a caller can fail closed), and the helper is replaced next time.
    public func compile(_ lists: [WebKitInput], timeoutPerList: Double = 180) -> [WebKitVerdict] {
        let shares = Self.balance(lists.map(\.json.count), over: min(size, lists.count))
        var verdicts = lists.map {
            WebKitVerdict(id: $0.id, rules: $0.rules, error: "WebKit returned no verdict", seconds: 0)
        }
        verdicts.withUnsafeMutableBufferPointer { slots in
            let base = slots.baseAddress!
            DispatchQueue.concurrentPerform(iterations: shares.count) { worker in
                let share = shares[worker]
                // Each worker writes only the slots of its own lists.
                do {
                    let compiler = try checkOut()
                    defer { checkIn(compiler) }
                    let results = try compiler.compile(share.map { lists[$0] }, timeoutPerList: timeoutPerList)
                    for (index, result) in zip(share, results) { base[index] = result }
                } catch {
                    for index in share { base[index].error = "\(error)" }
                }
            }
        }
        return verdicts
    }

    /// List indices split into `count` groups of about equal bytes, largest first.
    static func balance(_ sizes: [Int], over count: Int) -> [[Int]] {
        guard count > 0 else { return [] }
        var groups = [[Int]](repeating: [], count: count)
        var load = [Int](repeating: 0, count: count)
        for index in sizes.indices.sorted(by: { sizes[$0] > sizes[$1] }) {
            let lightest = load.indices.min { load[$0] < load[$1] }!
            groups[lightest].append(index)
            load[lightest] += sizes[index]
        }
        return groups
    }

    private func checkOut() throws(WebKitCompileFailure) -> WebKitCompiler {
        if let compiler = lock.withLock({ idle.popLast()?.compiler }) { return compiler }
        return try WebKitCompiler(helper: helper)
    }

    private func checkIn(_ compiler: WebKitCompiler) {
        guard compiler.isUsable else { return }
        lock.withLock { idle.append((compiler, .now())) }
        DispatchQueue.global().asyncAfter(deadline: .now() + idleSeconds) { [weak self] in self?.stopIdle() }
    }

    /// Stops the helpers idle for `idleSeconds` or more.
    private func stopIdle() {
        let now = DispatchTime.now().uptimeNanoseconds
        func isStale(_ entry: (compiler: WebKitCompiler, since: DispatchTime)) -> Bool {
            Double(now - min(now, entry.since.uptimeNanoseconds)) >= idleSeconds * 1e9
        }
        var stale = lock.withLock {
            let stale = idle.filter(isStale).map(\.compiler)
            idle.removeAll(where: isStale)
            return stale
        }
        // Released here, outside the lock: each compiler's deinit ends its helper and waits for it.
        stale.removeAll()
    }
}
