import Foundation

enum ServeCommand: Command {
    static let name = "serve"
    static let summary = "TODO"
    static let synopsis = ""
    static let flags: [FlagSpec] = []

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        ListServerMain.printError("listserver serve: not implemented yet")
        return 1
    }
}
