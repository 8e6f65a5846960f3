import Foundation

/// A child process run to completion: its exit status and everything it wrote.
public struct ChildRun {
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

    /// Runs `executable` with `arguments`, the test's environment plus `environment` (a nil value
    /// removes the variable), `stdin` (or nothing) on its standard input, and waits for it to exit,
    /// killing it after `timeout` seconds.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String?] = [:],
                           stdin: Data? = nil, timeout: Double = 300) throws -> ChildRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        for (name, value) in environment { merged[name] = value }
        process.environment = merged
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let input = stdin.map { _ in Pipe() }
        process.standardInput = input ?? FileHandle.nullDevice
        try process.run()
        // Read both pipes while the child runs, so neither fills up and blocks it.
        let group = DispatchGroup()
        let stdout = Collected(), stderr = Collected()
        DispatchQueue.global().async(group: group) { stdout.set(output.fileHandleForReading.readDataToEndOfFile()) }
        DispatchQueue.global().async(group: group) { stderr.set(errors.fileHandleForReading.readDataToEndOfFile()) }
        if let input, let stdin {
            input.fileHandleForWriting.write(stdin)
            try? input.fileHandleForWriting.close()
        }
        if group.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            process.waitUntilExit()
            throw Failure(description: "\(executable) \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
        }
        process.waitUntilExit()
        return ChildRun(status: process.terminationStatus, stdout: stdout.data, stderr: String(decoding: stderr.data, as: UTF8.self))
    }

    /// One pipe's bytes, written by its reader thread and read after the group is done.
    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var stored = Data()
        func set(_ data: Data) { lock.lock(); stored = data; lock.unlock() }
        var data: Data { lock.lock(); defer { lock.unlock() }; return stored }
    }
}
