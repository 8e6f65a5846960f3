import Foundation

/// A fresh directory under the temporary directory for one test, removed when the value is dropped.
/// The one scratch helper every test target uses.
public final class ScratchDirectory: @unchecked Sendable {
    public let path: String

    /// `label` names the test in the directory's name, so a leftover is easy to trace.
    public init(_ label: String = "test") {
        path = NSTemporaryDirectory() + "listserver-\(label)-\(getpid())-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }

    /// The path of `name` inside the directory.
    public func sub(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to `name` and returns its path.
    @discardableResult
    public func write(_ name: String, _ bytes: some DataProtocol) throws -> String {
        let target = sub(name)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        return target
    }

    public func read(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: sub(name))) }
}
