import Foundation

enum SyncCommand: Command {
    static let name = "sync"
    static let summary = "TODO"
    static let synopsis = ""
    static let flags: [FlagSpec] = []

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        ListServerMain.printError("listserver sync: not implemented yet")
        return 1
    }
}
