/// A `listserver` subcommand. Each lives in its own file and keeps its logic in the stage types
/// it drives, so the command itself only parses flags and reports.
protocol Command {
    static var name: String { get }
    static var summary: String { get }
    static var synopsis: String { get }
    static var flags: [FlagSpec] { get }
    static var maxPositional: Int { get }
    /// Runs with parsed arguments; returns the process exit code.
    static func run(_ arguments: ParsedArguments) throws -> Int32
}

extension Command {
    static var maxPositional: Int { 0 }
    static var usage: String {
        ArgumentParser.usage(command: name, summary: summary, synopsis: synopsis, flags: flags)
    }
}
