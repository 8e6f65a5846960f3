import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM/SIGINT for `serve`, taken synchronously on the main thread with sigwait(3), and the
/// exit that follows the drain.
///
/// Why not a Dispatch signal source, `dispatchMain()` and `exit(0)`:
/// - `dispatchMain()` parks the main thread in `sigsuspend` with an empty mask, so that thread
///   takes SIGTERM itself instead of the signal source: whether the drain ran depended on which
///   thread the kernel picked.
/// - `exit` runs the process's exit handlers (OpenSSL's `OPENSSL_cleanup` frees libcrypto's global
///   state; C++ static destructors) while a refresh thread may still be hashing, gzipping or
///   fetching through libcrypto/libcurl, or an explain engine still loading: a use after free.
///
/// Here the signals are blocked before any thread exists (every thread inherits the mask), the
/// main thread waits for one, the app stops refreshing and drains, and `_exit` ends the process
/// without running exit handlers under live threads. Every publish write is atomic (temporary file,
/// rename, manifest last), so a refresh cut short leaves the last good set as it was.
struct TerminationWait {
    private let signals: sigset_t

    /// Blocks SIGTERM and SIGINT for the calling thread and every thread it starts later; call it
    /// on the main thread before anything starts a thread.
    init() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signals = set
    }

    /// Blocks until SIGTERM or SIGINT arrives; returns which.
    func wait() -> Int32 {
        var set = signals
        var received: Int32 = 0
        while sigwait(&set, &received) != 0 {}
        return received
    }

    /// Flushes stdio and ends the process without exit handlers (see above).
    static func exitNow(_ status: Int32) -> Never {
        fflush(nil)
        _exit(status)
    }
}
