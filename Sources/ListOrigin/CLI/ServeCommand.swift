import CNIOShim
import Dispatch
import Foundation
import HTTPServerCore
import OriginConfig
import OriginStore

/// `listserver serve`: serve the published set and keep it fresh until SIGTERM/SIGINT.
enum ServeCommand: Command {
    static let name = "serve"
    static let summary = "serve the lists over HTTP and refresh them from upstream on a schedule"
    static let synopsis = "[--config PATH] [--port N]"
    static let flags: [FlagSpec] = [
        FlagSpec(
            name: "--config", takesValue: true,
            help: "config file (default ./config.json); relative paths in it resolve against its directory"),
        FlagSpec(name: "--port", takesValue: true, help: "listen port, overriding listen.port (0 picks a free port)"),
    ]

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        shim_ignore_sigpipe()
        var resolved = try ResolvedConfiguration.load(path: arguments.value("--config") ?? "config.json")
        if let port = arguments.value("--port") {
            resolved.configuration.listen.port = try ArgumentParser.integer(
                port, flag: "--port", range: ConfigurationLimits.port)
        }
        let log = Log(label: "listserver")
        let grace = resolved.configuration.http.shutdownGraceSeconds
        let app = ServerApp(resolved: resolved, log: log)
        // Before any thread exists, so every thread inherits the blocked mask and only the
        // main thread's sigwait takes SIGTERM/SIGINT.
        let termination = TerminationWait()
        let port = try app.start()
        // One machine-readable line on stdout so scripts and tests learn the port.
        print("listening on http://\(resolved.configuration.listen.address):\(port)/")
        fflush(stdout)
        let signal = termination.wait()
        log.info("termination signal \(signal == SIGINT ? "SIGINT" : "SIGTERM"): draining for up to \(grace) s")
        app.stop()
        log.info("stopped")
        TerminationWait.exitNow(0)
    }
}
