import Foundation
import ListOrigin
import OriginStore

/// `listserver`: the process entry point. Everything else is the `ListOrigin` library and its stages.
@main
enum ListServerMain {
    static func main() {
        MemoryTuning.apply()
        exit(ListServerCommandLine.run(Array(CommandLine.arguments.dropFirst())))
    }
}
