import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The helper process's side (`listserver webkit-compile`): loads WebKitGTK, says hello, then
/// compiles each list it is sent, on this (main) thread, until its stdin closes.
public enum WebKitCompileService {
    /// Exit statuses: 0 after stdin closed, 3 when WebKit did not load, 4 after a compile timed out,
    /// 2 on a broken request.
    public static func run(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int32 {
        // Frames go to a private copy of stdout; anything else printing to stdout lands on stderr.
        let replies = dup(1)
        dup2(2, 1)
        let library: WebKitLibrary
        do {
            library = try WebKitLibrary(library: WebKitCompiler.libraryName(environment))
        } catch {
            _ = CompileFrames.write(message: CompileFrames.Hello(unavailable: error.reason), to: replies)
            return 3
        }
        guard CompileFrames.write(message: CompileFrames.Hello(webkit: library.version), to: replies) else { return 2 }
        while true {
            guard let request = try? CompileFrames.read(CompileFrames.Request.self, from: 0) else { return 0 }
            guard let json = try? CompileFrames.read(from: 0) else { return 2 }
            let outcome = library.compile(json, timeout: request.timeout)
            let reply = CompileFrames.Reply(error: outcome.error, seconds: outcome.seconds, timedOut: outcome.timedOut)
            guard CompileFrames.write(message: reply, to: replies) else { return 2 }
            if outcome.timedOut { return 4 }
        }
    }
}
