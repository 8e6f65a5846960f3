import Foundation

/// A small line logger to stderr. Passed to the parts that log, never a global.
package struct Log: Sendable {
    package enum Level: Int, Sendable, Comparable {
        case debug, info, warning, error
        package static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
        package var label: String { ["debug", "info", "warning", "error"][rawValue] }
    }

    package var label: String
    package var minimum: Level = .info
    /// Where lines go; tests capture them.
    var sink: @Sendable (String) -> Void = { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }

    package init(label: String, minimum: Level = .info) {
        self.label = label
        self.minimum = minimum
    }

    init(label: String, minimum: Level = .info, sink: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.minimum = minimum
        self.sink = sink
    }

    package func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard level >= minimum else { return }
        let stamp = ISO8601DateFormatter().string(from: Date())
        sink("\(stamp) \(level.label) [\(label)] \(message())")
    }

    func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    package func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    package func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    package func error(_ message: @autoclosure () -> String) { log(.error, message()) }

    package func child(_ sublabel: String) -> Log {
        var copy = self
        copy.label = label + "." + sublabel
        return copy
    }
}
