import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process run to completion: its exit status and everything it wrote.
///
/// Started with `posix_spawn` and reaped with its own `waitpid(pid)`: Foundation's `Process` reaps
/// on a shared thread, where waiting for one long-running child (Varnish, a server) could hold up
/// every other child's bookkeeping.
public struct ChildRun {
    /// The exit status, or 128 + the signal that ended the child.
    public var status: Int32
    public var stdout: Data
    public var stderr: String

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// stdout as text.
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    /// stdout then stderr, for messages.
    public var output: String { stdoutText + stderr }

    /// Runs `script` with `/bin/sh -c` (pipelines, redirections).
    public static func shell(_ script: String, timeout: Double = 300) throws -> ChildRun {
        try run("/bin/sh", ["-c", script], timeout: timeout)
    }

    /// Runs `executable` (a path) with `arguments`, the test's environment plus `environment` (a nil
    /// value removes the variable), `stdin` (or nothing) on its standard input, and waits for it to
    /// exit, killing it (SIGKILL) after `timeout` seconds.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String?] = [:],
                           stdin: Data? = nil, timeout: Double = 300) throws -> ChildRun {
        var merged = ProcessInfo.processInfo.environment
        for (name, value) in environment { merged[name] = value }
        var input: [Int32] = [-1, -1], out: [Int32] = [0, 0], err: [Int32] = [0, 0]
        guard pipe(&out) == 0, pipe(&err) == 0, stdin == nil || pipe(&input) == 0 else {
            throw Failure(description: "pipe: \(String(cString: strerror(errno)))")
        }
        let ends = stdin == nil ? out + err : input + out + err
        // Close-on-exec, so children spawned meanwhile by other threads do not hold these pipes
        // open (dup2 onto 0, 1 and 2 clears the flag for this child's own copies).
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if stdin == nil {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        } else {
            posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        }
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        for fd in [input[0], out[1], err[1]] where fd >= 0 { close(fd) }
        guard spawned == 0 else {
            for fd in [input[1], out[0], err[0]] where fd >= 0 { close(fd) }
            throw Failure(description: "posix_spawn \(executable): \(String(cString: strerror(spawned)))")
        }
        // Both pipes are read to EOF on threads of their own, so neither fills up and blocks the
        // child; stdin is written on another, so a child that does not read it cannot block us.
        let group = DispatchGroup()
        let stdout = Collected(), stderr = Collected()
        for (fd, sink) in [(out[0], stdout), (err[0], stderr)] {
            group.enter()
            Thread.detachNewThread {
                sink.set(readToEnd(fd))
                group.leave()
            }
        }
        if let stdin {
            let fd = input[1]
            Thread.detachNewThread {
                stdin.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                        if written > 0 { offset += written } else if written < 0, errno == EINTR { continue } else { break }
                    }
                }
                close(fd)
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

    private static func readToEnd(_ fd: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count > 0 { data.append(contentsOf: buffer[0..<count]) } else if count == 0 || errno != EINTR { break }
        }
        close(fd)
        return data
    }

    /// One pipe's bytes, written by its reader thread and read after the group is done.
    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var stored = Data()
        func set(_ data: Data) { lock.lock(); stored = data; lock.unlock() }
        var data: Data { lock.lock(); defer { lock.unlock() }; return stored }
    }
}
