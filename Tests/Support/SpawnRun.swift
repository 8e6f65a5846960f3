import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child run with posix_spawn and reaped with its own `waitpid(pid)`: for tests that run many
/// short children beside long-running ones (Varnish, servers). Foundation's `Process` reaps on a
/// shared manager thread, where a wait for one child can hold up every other child's bookkeeping.
public enum SpawnRun {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `executable` with `arguments` (the test's environment), collects stdout and stderr, and
    /// kills it (SIGKILL) after `timeout` seconds. Returns the exit status (128 + signal when killed by one).
    public static func run(_ executable: String, _ arguments: [String], timeout: Double) throws -> ChildRun {
        var out: [Int32] = [0, 0], err: [Int32] = [0, 0]
        guard pipe(&out) == 0, pipe(&err) == 0 else { throw Failure(description: "pipe: errno \(errno)") }
        // Close-on-exec, so other children spawned meanwhile do not hold these pipes open (dup2 onto
        // 1 and 2 clears the flag for this child's own copies).
        for fd in out + err { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(out[1])
        close(err[1])
        guard spawned == 0 else {
            close(out[0])
            close(err[0])
            throw Failure(description: "posix_spawn \(executable): \(String(cString: strerror(spawned)))")
        }
        // Stdout and stderr are read to EOF on threads of their own; the watchdog kills the child
        // at the deadline, which closes both pipes.
        let group = DispatchGroup()
        let stdout = Collected(), stderr = Collected()
        for (fd, sink) in [(out[0], stdout), (err[0], stderr)] {
            group.enter()
            Thread.detachNewThread {
                var data = Data()
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = read(fd, &buffer, buffer.count)
                    if count > 0 { data.append(contentsOf: buffer[0..<count]) } else if count == 0 || errno != EINTR { break }
                }
                close(fd)
                sink.set(data)
                group.leave()
            }
        }
        var timedOut = false
        if group.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill(pid, SIGKILL)
            group.wait()
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        if timedOut { throw Failure(description: "\(executable) \(arguments.joined(separator: " ")) did not finish within \(timeout) s") }
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return ChildRun(status: exit, stdout: stdout.data, stderr: String(decoding: stderr.data, as: UTF8.self))
    }

    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var stored = Data()
        func set(_ data: Data) { lock.lock(); stored = data; lock.unlock() }
        var data: Data { lock.lock(); defer { lock.unlock() }; return stored }
    }
}
