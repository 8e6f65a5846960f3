import Foundation

/// A small line logger to stderr. Passed to the parts that log, never a global.
struct Log: Sendable {
    enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error
        static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
        var label: String { ["debug", "info", "warning", "error"][rawValue] }
    }

    var label: String
    var minimum: Level = .info
    /// Where lines go; tests capture them.
    var sink: @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }

    func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard level >= minimum else { return }
        let stamp = ISO8601DateFormatter().string(from: Date())
        sink("\(stamp) \(level.label) [\(label)] \(message())")
    }

    func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    func error(_ message: @autoclosure () -> String) { log(.error, message()) }

    func child(_ sublabel: String) -> Log {
        var copy = self
        copy.label = label + "." + sublabel
        return copy
    }
}
