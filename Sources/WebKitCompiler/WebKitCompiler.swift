import Foundation
import ProcessRunner

#if canImport(Glibc)
    import Glibc
#endif

/// Compiles content-blocker lists with real WebKit (WebKitGTK's `UserContentFilterStore`) in one
/// long-lived helper process of our own binary (`listserver webkit-compile`), one list at a time.
/// Starting it loads WebKit once; every compile after that is two pipe writes and a read. A crash
/// or hang inside WebKit ends the helper, never the caller.
public final class WebKitCompiler: @unchecked Sendable {
    public static let libraryVariable = "LISTSERVER_WEBKIT_LIBRARY"
    public static let defaultLibrary = "libwebkit2gtk-4.1.so.0"
    /// The hidden subcommand that runs `WebKitCompileService`.
    public static let helperCommand = "webkit-compile"

    /// The library to dlopen: `LISTSERVER_WEBKIT_LIBRARY` when set, else WebKitGTK 4.1's soname.
    public static func libraryName(_ environment: [String: String]) -> String {
        environment[libraryVariable].flatMap { $0.isEmpty ? nil : $0 } ?? defaultLibrary
    }

    /// How to start the helper: an executable that runs `WebKitCompileService.run()` for `arguments`.
    public struct Helper: Sendable {
        public var executable: String
        public var arguments: [String]
        public var environment: [String: String]?

        public init(
            executable: String, arguments: [String] = [WebKitCompiler.helperCommand],
            environment: [String: String]? = nil
        ) {
            self.executable = executable
            self.arguments = arguments
            self.environment = environment
        }

        /// This very binary (`/proc/self/exe`), for `listserver` itself.
        public static func thisExecutable() -> Helper {
            let path =
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? CommandLine.arguments[0]
            return Helper(executable: path)
        }
    }

    public let webKitVersion: String
    private let child: RunningChild
    private let lock = NSLock()
    private var broken: String?

    /// Starts the helper and waits for WebKit to load; throws `.unavailable` when it does not.
    public init(helper: Helper, startTimeout: Double = 60) throws(WebKitCompileFailure) {
        do {
            child = try RunningChild(
                helper.executable, helper.arguments, environment: helper.environment,
                stdin: .pipe, stdout: .pipe, stderr: .inherit)
        } catch {
            throw .helper("\(error)")
        }
        let hello: CompileFrames.Hello?
        do {
            hello = try CompileFrames.read(
                CompileFrames.Hello.self, from: child.output, deadline: Date().addingTimeInterval(startTimeout))
        } catch {
            child.stop(grace: 2)
            throw .helper("WebKit did not load within \(Int(startTimeout)) s")
        }
        guard let version = hello?.webkit else {
            let status = child.stop(grace: 2)
            throw .unavailable(
                hello?.unavailable
                    ?? "\(helper.executable) \(helper.arguments.joined(separator: " ")) exited with status \(status) before saying hello"
            )
        }
        webKitVersion = version
    }

    /// Compiles each list in order. Throws only when the helper cannot answer (it died, or did not
    /// answer within `timeoutPerList` plus a margin); a list WebKit rejects is a verdict with `error`.
    /// After a list times out the helper stops, and later calls throw: start a new compiler.
    public func compile(_ lists: [WebKitInput], timeoutPerList: Double = 180) throws(WebKitCompileFailure)
        -> [WebKitVerdict]
    {
        lock.lock()
        defer { lock.unlock() }
        var verdicts: [WebKitVerdict] = []
        for list in lists {
            if let broken { throw .helper(broken) }
            guard CompileFrames.write(message: CompileFrames.Request(timeout: timeoutPerList), to: child.input),
                CompileFrames.write(list.json, to: child.input)
            else {
                broken = "it exited (status \(child.wait()))"
                throw .helper(broken!)
            }
            let reply: CompileFrames.Reply?
            do {
                reply = try CompileFrames.read(
                    CompileFrames.Reply.self, from: child.output,
                    deadline: Date().addingTimeInterval(timeoutPerList + 30))
            } catch {
                child.stop(grace: 2)
                broken = "no answer for \(list.id) within \(Int(timeoutPerList + 30)) s; it was stopped"
                throw .helper(broken!)
            }
            guard let reply else {
                broken = "it exited (status \(child.wait())) while compiling \(list.id)"
                throw .helper(broken!)
            }
            if reply.timedOut { broken = "it stopped after \(list.id) timed out" }
            verdicts.append(WebKitVerdict(id: list.id, rules: list.rules, error: reply.error, seconds: reply.seconds))
        }
        return verdicts
    }

    /// Whether later compiles can still succeed.
    public var isUsable: Bool { lock.withLock { broken == nil } && child.isRunning }

    deinit {
        // End of file on its stdin ends the helper, which then removes its filter store.
        child.closeInput()
        if child.waitForExit(within: 5) == nil { child.stop(grace: 2) }
        close(child.output)
    }
}
