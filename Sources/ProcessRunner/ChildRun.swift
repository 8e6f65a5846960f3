import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process run to completion: its exit status and everything it wrote.
public struct ChildRun: Sendable {
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

    /// Runs `executable` (a path) with `arguments`, this process's environment plus `environment` (a
    /// nil value removes the variable), `stdin` (or nothing) on its standard input, and waits for it
    /// to exit, killing it (SIGTERM, then SIGKILL two seconds later) after `timeout` seconds.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String?] = [:],
        stdin: Data? = nil, timeout: Double = 300
    ) throws -> ChildRun {
        let child: RunningChild
        do {
            child = try RunningChild(
                executable, arguments, environment: RunningChild.environment(changing: environment),
                stdin: stdin == nil ? .null : .pipe, stdout: .pipe, stderr: .pipe)
        } catch {
            throw Failure(description: "\(error)")
        }
        // Both pipes are read to EOF on threads of their own, so neither fills up and blocks the
        // child; stdin is written on another, so a child that does not read it cannot block us.
        let group = DispatchGroup()
        let stdout = Collected()
        let stderr = Collected()
        for (fd, sink) in [(child.output, stdout), (child.errors, stderr)] {
            group.enter()
            Thread.detachNewThread {
                sink.set(readToEnd(fd))
                group.leave()
            }
        }
        if let stdin {
            Thread.detachNewThread {
                stdin.withUnsafeBytes { bytes in _ = PipeIO.writeAll(child.input, bytes) }
                child.closeInput()
            }
        }
        if group.wait(timeout: .now() + timeout) == .timedOut {
            child.stop(grace: 2)
            // A grandchild (WebKit's helper processes) may keep the pipes open after the child exits.
            _ = group.wait(timeout: .now() + 10)
            throw Failure(
                description:
                    "\(executable) \(arguments.joined(separator: " ")) did not finish within \(timeout) s and was killed"
            )
        }
        let status = child.wait()
        return ChildRun(status: status, stdout: stdout.data, stderr: String(decoding: stderr.data, as: UTF8.self))
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
        func set(_ data: Data) {
            lock.lock()
            stored = data
            lock.unlock()
        }
        var data: Data {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
    }
}
