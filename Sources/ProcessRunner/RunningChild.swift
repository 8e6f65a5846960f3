import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn` and reaped with its own `waitpid(pid)`, never by a
/// shared reaper: Foundation's `Process` reaps on one shared thread, where waiting for one
/// long-running child (Varnish, a server) could hold up every other child's bookkeeping.
///
/// `ChildRun` runs a child to completion on top of this; servers, Varnish and the WebKit compile
/// helper keep one running and talk to it through its pipes.
public final class RunningChild: @unchecked Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// /dev/null.
        case null
        /// The parent's own descriptor.
        case inherit
        /// A pipe; the parent's end is `input` (for stdin) or `output`/`errors` (for stdout/stderr).
        case pipe
        /// A file, created or truncated.
        case file(String)
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    public let pid: pid_t
    public let executable: String
    /// The parent's end of a `.pipe` stdin (write), stdout and stderr (read); -1 otherwise. The
    /// owner closes them (`closeInput()` or by reading to EOF with `ChildRun`).
    public let input: Int32, output: Int32, errors: Int32
    private let lock = NSLock()
    private var exitStatus: Int32?
    private var inputClosed = false
    private var signalNumber: Int32?

    /// Starts `executable` (a path) with `arguments` and `environment` (nil: this process's), its
    /// streams where asked. Every descriptor the parent keeps is close-on-exec, so children started
    /// meanwhile by other threads do not hold these pipes open.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        stdin: Stream = .null, stdout: Stream = .inherit, stderr: Stream = .inherit
    ) throws {
        self.executable = executable
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var childEnds: [Int32] = []
        var parentEnds: [Int32] = [-1, -1, -1]
        func cleanUp() { for end in childEnds + parentEnds where end >= 0 { close(end) } }
        for (target, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .inherit: break
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .pipe:
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else {
                    cleanUp()
                    throw Failure("pipe: \(String(cString: strerror(errno)))")
                }
                for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
                let (childEnd, parentEnd) = target == 0 ? (ends[0], ends[1]) : (ends[1], ends[0])
                childEnds.append(childEnd)
                parentEnds[Int(target)] = parentEnd
                // dup2 onto 0, 1 or 2 clears close-on-exec for the child's own copy.
                posix_spawn_file_actions_adddup2(&actions, childEnd, target)
            }
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        // The child starts with no signal blocked and default dispositions: a thread that blocks
        // SIGTERM (the server's signal handling, the test runner's threads) or a process that ignores
        // SIGPIPE must not pass that on, or SIGTERM would stay pending in the child.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        for end in childEnds { close(end) }
        childEnds = []
        guard spawned == 0 else {
            cleanUp()
            throw Failure("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        (input, output, errors) = (parentEnds[0], parentEnds[1], parentEnds[2])
    }

    /// The environment of this process with `changes` applied (a nil value removes the variable).
    public static func environment(changing changes: [String: String?]) -> [String: String] {
        var merged = ProcessInfo.processInfo.environment
        for (name, value) in changes { merged[name] = value }
        return merged
    }

    /// Whether the child has not exited yet (reaps it when it has).
    public var isRunning: Bool { poll() == nil }

    /// The exit status once the child has exited (128 + signal when a signal ended it), without blocking.
    public func poll() -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        var reaped: pid_t
        repeat { reaped = waitpid(pid, &status, WNOHANG) } while reaped < 0 && errno == EINTR
        guard reaped == pid else { return nil }
        record(status)
        return exitStatus
    }

    /// Blocks until the child exits; its exit status (128 + signal when a signal ended it).
    @discardableResult
    public func wait() -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        record(status)
        return exitStatus!
    }

    /// Sends `signal` unless the child has already been reaped (its pid may be reused by then).
    public func signal(_ signal: Int32) {
        if poll() == nil { kill(pid, signal) }
    }

    /// The exit status once the child exits within `seconds`; nil when it is still running then.
    public func waitForExit(within seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while poll() == nil, Date() < deadline { usleep(10_000) }
        return poll()
    }

    /// SIGTERM, then SIGKILL when the child has not exited within `grace` seconds; its exit status.
    @discardableResult
    public func stop(grace: Double = 10) -> Int32 {
        signal(SIGTERM)
        if let status = waitForExit(within: grace) { return status }
        signal(SIGKILL)
        return wait()
    }

    /// Closes the parent's end of the stdin pipe: the child reads end of file.
    public func closeInput() {
        lock.lock()
        defer { lock.unlock() }
        if input >= 0, !inputClosed { close(input) }
        inputClosed = true
    }

    /// The signal that ended the child; nil while it runs or when it exited by itself.
    public var terminatingSignal: Int32? {
        _ = poll()
        return lock.withLock { signalNumber }
    }

    /// Called with the lock held.
    private func record(_ status: Int32) {
        let signal = status & 0x7f
        signalNumber = signal == 0 ? nil : signal
        exitStatus = signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
