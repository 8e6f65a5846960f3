import Foundation

/// The origin's HTTP/1.1 server. Construct it, `start()` it, `install` each published generation,
/// and `shutdown(grace:)` it on SIGTERM/SIGINT.
final class HTTPServer: @unchecked Sendable {
    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    private let configuration: Configuration.HTTP
    private let listen: Configuration.Listen
    private let status: StatusBoard
    private let log: Log
    private let admin: AdminEndpoint?
    private let lock = NSLock()
    private var content = SiteContent.empty

    init(configuration: Configuration.HTTP, listen: Configuration.Listen, status: StatusBoard, log: Log, admin: AdminEndpoint?) {
        self.configuration = configuration
        self.listen = listen
        self.status = status
        self.log = log
        self.admin = admin
    }

    /// Binds and starts serving; returns the bound port (useful when `listen.port` is 0).
    func start() throws -> Int {
        throw StartError(description: "HTTP server not implemented yet")
    }

    /// Replaces the served generation atomically.
    func install(_ content: SiteContent) {
        lock.lock()
        self.content = content
        lock.unlock()
    }

    /// Stops accepting, lets in-flight responses finish for up to `grace` seconds, then closes
    /// everything. Blocks until done.
    func shutdown(grace: Double) {}
}
