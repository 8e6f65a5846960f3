/// Everything the server itself needs; the application maps its own configuration onto it.
public struct HTTPServerConfiguration: Sendable, Equatable {
    /// IPv4 or IPv6 literal.
    public var address = "127.0.0.1"
    /// 0 lets the kernel choose (`HTTP1Server.start` returns the bound port).
    public var port = 8080
    /// The `Server` header, and the prefix of the event loops' queue labels.
    public var serverName = "http"
    public var maxHeaderBytes = 16_384
    public var maxURIBytes = 2_048
    /// A request head must be complete this long after its first byte.
    public var headerReadTimeoutSeconds = 10.0
    public var keepAliveIdleTimeoutSeconds = 60.0
    /// Across all loops; beyond it a connection gets a 503 and is closed.
    public var maxConnections = 10_000
    /// One `access` line per answered request.
    public var accessLog = false

    public init() {}
}
