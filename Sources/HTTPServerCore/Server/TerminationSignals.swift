import CNIOShim
import Foundation
import Glibc

/// Runs a handler once on the first SIGTERM or SIGINT, via Dispatch signal sources, so a server
/// can call `HTTP1Server.shutdown(grace:)` and exit 0.
///
/// Usage: `let signals = TerminationSignals { server.shutdown(grace: g); exit(0) }` on the main
/// thread before other threads start (the signals are blocked so only the sources see them);
/// keep the value alive while serving.
public final class TerminationSignals: @unchecked Sendable {
    private let sources: [DispatchSourceSignal]

    public init(queue: DispatchQueue = DispatchQueue(label: "http.signals"), handler: @escaping @Sendable () -> Void) {
        shim_block_termination_signals()
        let once = Once()
        sources = [SIGTERM, SIGINT].map { signal in
            let source = DispatchSource.makeSignalSource(signal: signal, queue: queue)
            source.setEventHandler {
                if once.claim() { handler() }
            }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }

    private final class Once: @unchecked Sendable {
        private var claimed = false
        private let lock = NSLock()
        func claim() -> Bool {
            lock.withLock {
                defer { claimed = true }
                return !claimed
            }
        }
    }
}
