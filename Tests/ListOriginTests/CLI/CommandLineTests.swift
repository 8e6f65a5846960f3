import OriginTestSupport
import Testing

@testable import ListOrigin

@Suite struct CommandLineTests {
    @Test func unknownFlagIsAUsageError() {
        #expect(throws: UsageError(description: "unknown flag --bogus")) {
            try ArgumentParser.parse(["--bogus"], flags: ServeCommand.flags)
        }
        #expect(ListServerCommandLine.run(["serve", "--bogus"]) == 2)
    }

    /// Every command of the dispatch table is listed, and each runs its own `--help`.
    @Test func helpListsEverySubcommand() {
        let usage = ListServerCommandLine.topLevelUsage
        #expect(ListServerCommandLine.commands.count >= 7)
        for command in ListServerCommandLine.commands {
            #expect(usage.contains("  \(command.name) "), "\(command.name) is missing from --help")
            #expect(usage.contains(command.summary), "\(command.name)'s summary is missing from --help")
            #expect(ListServerCommandLine.run([command.name, "--help"]) == 0)
        }
    }
}
