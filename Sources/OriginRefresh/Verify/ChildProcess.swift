import Foundation

/// Runs a helper program to completion with a deadline, collecting stdout and stderr.
/// Both pipes are drained concurrently so a chatty child cannot block on a full pipe.
package struct ChildProcess: Sendable {
    package struct Finished: Sendable {
        package var status: Int32
        package var stdout: Data
        var stderr: Data
    }

    package enum Failure: Error, CustomStringConvertible {
        case cannotStart(String, reason: String)
        case timedOut(String, seconds: Double)

        package var description: String {
            switch self {
            case let .cannotStart(path, reason): return "cannot start \(path): \(reason)"
            case let .timedOut(path, seconds):
                return "\(path) did not finish within \(Int(seconds)) s and was killed; raise the timeout or check WebKitGTK"
            }
        }
    }

    var executable: URL
    package var arguments: [String]
    package var environment: [String: String]? = nil
    var stdin: Data? = nil
    /// Wall-clock limit; the child gets SIGTERM, then SIGKILL two seconds later.
    package var timeout: Double

    package func run() throws -> Finished {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let outPipe = Pipe(), errPipe = Pipe(), inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = stdin == nil ? FileHandle.nullDevice : inPipe
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            throw Failure.cannotStart(executable.path, reason: "\(error.localizedDescription)")
        }
        // Blocking pipe reads get threads of their own: on Dispatch's shared pool they can starve
        // other blocked work (and Foundation's child reaping) when several children run at once.
        let drained = DispatchGroup()
        let collected = Collected()
        drained.enter()
        drained.enter()
        Thread.detachNewThread {
            collected.setOut(outPipe.fileHandleForReading.readDataToEndOfFile())
            drained.leave()
        }
        Thread.detachNewThread {
            collected.setErr(errPipe.fileHandleForReading.readDataToEndOfFile())
            drained.leave()
        }
        if let stdin {
            inPipe.fileHandleForWriting.write(stdin)
            try? inPipe.fileHandleForWriting.close()
        }
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            if exited.wait(timeout: .now() + 2) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                exited.wait()
            }
            drained.wait()
            throw Failure.timedOut(executable.path, seconds: timeout)
        }
        // A grandchild (WebKit's helper processes) may keep the pipes open after the child exits;
        // do not wait for it forever.
        _ = drained.wait(timeout: .now() + 10)
        return Finished(status: process.terminationStatus, stdout: collected.out, stderr: collected.err)
    }
}

/// Pipe contents gathered on two reader threads.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var _out = Data(), _err = Data()
    var out: Data { lock.withLock { _out } }
    var err: Data { lock.withLock { _err } }
    func setOut(_ data: Data) { lock.withLock { _out = data } }
    func setErr(_ data: Data) { lock.withLock { _err = data } }
}
