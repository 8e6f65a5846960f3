@testable import ListOrigin
import Testing

@Suite struct CommandLineTests {
    @Test func unknownFlagIsAUsageError() {
        #expect(throws: UsageError(description: "unknown flag --bogus")) {
            try ArgumentParser.parse(["--bogus"], flags: ServeCommand.flags)
        }
        #expect(ListServerCommandLine.run(["serve", "--bogus"]) == 2)
    }

    @Test func helpListsEverySubcommand() {
        let usage = ListServerCommandLine.topLevelUsage
        for command in ["serve", "convert", "fetch", "verify", "sync"] {
            #expect(usage.contains("  \(command) "))
        }
    }
}
