import Foundation

enum ConvertCommand: Command {
    static let name = "convert"
    static let summary = "TODO"
    static let synopsis = ""
    static let flags: [FlagSpec] = []

    static func run(_ arguments: ParsedArguments) throws -> Int32 {
        ListServerMain.printError("listserver convert: not implemented yet")
        return 1
    }
}
