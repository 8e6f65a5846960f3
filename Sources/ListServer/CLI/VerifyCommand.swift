import Foundation

enum VerifyCommand: Command {
    static let name = "verify"
    static let summary = "TODO"
    static let synopsis = ""
    static let flags: [FlagSpec] = []

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        ListServerMain.printError("listserver verify: not implemented yet")
        return 1
    }
}
