import Foundation

enum FetchCommand: Command {
    static let name = "fetch"
    static let summary = "TODO"
    static let synopsis = ""
    static let flags: [FlagSpec] = []

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        ListServerMain.printError("listserver fetch: not implemented yet")
        return 1
    }
}
