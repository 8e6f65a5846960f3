import Foundation
import TestSupport
import Testing

/// Runs an independent checker (minisign, openssl, python3) directly, no shell, through `ChildRun`.
enum ExternalTool {
    static func run(_ path: String, _ arguments: [String], stdin: Data? = nil) throws -> ChildRun {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ToolMissing(
                description:
                    "\(path) is not installed; run scripts/setup.sh test (it installs minisign, openssl and python3-cryptography)"
            )
        }
        return try ChildRun.run(path, arguments, stdin: stdin)
    }

    static func minisign(_ arguments: [String]) throws -> ChildRun { try run("/usr/bin/minisign", arguments) }
    static func openssl(_ arguments: [String]) throws -> ChildRun { try run("/usr/bin/openssl", arguments) }

    struct ToolMissing: Error, CustomStringConvertible { var description: String }
}

/// A manifest-shaped message of about 3 KB, different on every call.
func sampleManifest() -> Data {
    var text = #"{"format":1,"generation":\#(UInt32.random(in: 1...UInt32.max)),"lists":["#
    for index in 0..<20 {
        let hash = (0..<8).map { _ in String(format: "%08x", UInt32.random(in: 0...UInt32.max)) }.joined()
        text +=
            (index == 0 ? "" : ",")
            + #"{"id":"list-\#(index)","file":"lists/\#(hash).json","sha256":"\#(hash)","rules":\#(index * 997)}"#
    }
    return Data((text + "]}").utf8)
}

/// The same bytes with one byte changed (XOR 1) at `index`.
func flippingOneByte(_ data: Data, at index: Int? = nil) -> Data {
    var copy = data
    let position = index ?? copy.count / 2
    copy[position] ^= 0x01
    return copy
}
