/// Why WebKit could not be asked at all (a list WebKit rejects is a `WebKitVerdict`, not this).
public enum WebKitCompileFailure: Error, CustomStringConvertible, Equatable {
    /// The library did not load: not installed, or the name in the environment is wrong.
    case unavailable(String)
    /// The helper process could not be started, or stopped answering.
    case helper(String)

    /// The cause alone, without the advice `description` adds.
    public var reason: String {
        switch self {
        case .unavailable(let reason), .helper(let reason): return reason
        }
    }

    public var description: String {
        switch self {
        case .unavailable(let reason):
            return "WebKitGTK is unavailable: \(reason) (install the package libwebkit2gtk-4.1-0, "
                + "or set \(WebKitCompiler.libraryVariable) to the library's path)"
        case .helper(let reason):
            return "the WebKit compile helper failed: \(reason)"
        }
    }
}

/// WebKit's answer for one list.
public struct WebKitVerdict: Sendable, Equatable {
    public var id: String
    /// Rules in the list, as the caller counted them (nil when unknown).
    public var rules: Int?
    /// WebKit's error, with the regex parser's detail when WebKit gave one; nil when the list compiled.
    public var error: String?
    /// Wall-clock seconds WebKit spent compiling.
    public var seconds: Double
    public var ok: Bool { error == nil }

    public init(id: String, rules: Int?, error: String?, seconds: Double) {
        self.id = id
        self.rules = rules
        self.error = error
        self.seconds = seconds
    }
}

/// One list to compile.
public struct WebKitInput: Sendable {
    public var id: String
    public var json: [UInt8]
    public var rules: Int?

    public init(id: String, json: [UInt8], rules: Int? = nil) {
        self.id = id
        self.json = json
        self.rules = rules
    }
}
