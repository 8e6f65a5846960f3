import Foundation

/// Chooses the publish gate from `publish.verifyWithWebKit`: "off" none, "on" the WebKit verifier
/// (an error when WebKitGTK is missing), "auto" the verifier when WebKitGTK is installed.
enum GateSelection {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    static func make(setting: String, log: Log) throws -> (any PublishGate)? {
        if setting == "off" { return nil }
        // The WebKit verifier (Sources/ListServer/Verify) is wired here once it exists.
        if setting == "on" {
            throw Unavailable(description: "publish.verifyWithWebKit is \"on\" but no WebKit verifier is available in this build; set it to \"auto\" or \"off\"")
        }
        log.warning("publish gate: no WebKit verifier available; publishing without compiling lists first")
        return nil
    }
}
