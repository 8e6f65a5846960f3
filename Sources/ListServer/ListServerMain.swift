import Foundation
import ListOrigin

/// `listserver`: the process entry point. Everything else is the `ListOrigin` library.
@main
enum ListServerMain {
    static func main() {
        MemoryTuning.apply()
        exit(ListServerCommandLine.run(Array(CommandLine.arguments.dropFirst())))
    }
}
