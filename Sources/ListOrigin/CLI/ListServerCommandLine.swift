import Foundation
import OriginConfig

/// `listserver`'s command line: the command table, parsing and dispatch. The executable only calls
/// `run`; tests and other front ends drive the same table.
public enum ListServerCommandLine {
    /// `ListServerVersion.current`, for `--version`.
    public static let version = ListServerVersion.current

    static let commands: [any Command.Type] = [
        ServeCommand.self, ConvertCommand.self, FetchCommand.self, VerifyCommand.self, SyncCommand.self,
        KeygenCommand.self, ExplainCommand.self,
    ]

    /// The names of every subcommand, in the order `--help` lists them.
    public static var commandNames: [String] { commands.map { $0.name } }

    public static var topLevelUsage: String {
        var lines = [
            "listserver \(version): turns EasyList/EasyPrivacy into WebKit content-blocker lists and serves them.",
            "",
            "usage: listserver <command> [flags]",
            "",
            "commands:",
        ]
        for command in commands {
            lines.append("  " + command.name.padding(toLength: 10, withPad: " ", startingAt: 0) + command.summary)
        }
        lines.append("")
        lines.append("Run 'listserver <command> --help' for a command's flags.")
        return lines.joined(separator: "\n")
    }

    /// Runs a command line and returns the exit code: 0 ok, 1 failure, 2 usage error.
    public static func run(_ arguments: [String]) -> Int32 {
        guard let first = arguments.first else {
            printError(topLevelUsage)
            return 2
        }
        if first == "--help" || first == "-h" || first == "help" {
            print(topLevelUsage)
            return 0
        }
        if first == "--version" {
            print(version)
            return 0
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            printError("listserver: unknown command \(first)\n\n" + topLevelUsage)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            print(command.usage)
            return 0
        }
        do {
            let parsed = try ArgumentParser.parse(rest, flags: command.flags, maxPositional: command.maxPositional)
            return try command.run(parsed)
        } catch let error as UsageError {
            printError("listserver \(command.name): \(error)\n\n" + command.usage)
            return 2
        } catch {
            printError("listserver \(command.name): \(error)")
            return 1
        }
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
