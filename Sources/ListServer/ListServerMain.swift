import Foundation
import ListOrigin
import OriginStore
import WebKitCompiler

/// `listserver`: the process entry point. Everything else is the `ListOrigin` library and its stages.
@main
enum ListServerMain {
    static func main() {
        // The publish gate's WebKit helper: this binary again, with WebKit on its main thread.
        if CommandLine.arguments.dropFirst().first == WebKitCompiler.helperCommand {
            exit(WebKitCompileService.run())
        }
        MemoryTuning.apply()
        exit(ListServerCommandLine.run(Array(CommandLine.arguments.dropFirst())))
    }
}
