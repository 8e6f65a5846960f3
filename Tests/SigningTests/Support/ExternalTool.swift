import Foundation
import Testing

/// Runs an independent checker (minisign, openssl, python3) directly, no shell, and collects its output.
struct ExternalTool {
    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: String
        var output: String { String(decoding: stdout, as: UTF8.self) + stderr }
    }

    static func run(_ path: String, _ arguments: [String], stdin: Data? = nil) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ToolMissing(description: "\(path) is not installed; run scripts/setup.sh test (it installs minisign, openssl and python3-cryptography)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // Both pipes drain concurrently, so a chatty tool cannot block on a full stderr pipe.
        let errorData = LockedData()
        let drained = DispatchGroup()
        drained.enter()
        DispatchQueue.global().async {
            errorData.set(err.fileHandleForReading.readDataToEndOfFile())
            drained.leave()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        drained.wait()
        return Result(status: process.terminationStatus, stdout: stdout, stderr: String(decoding: errorData.value, as: UTF8.self))
    }

    static func minisign(_ arguments: [String]) throws -> Result { try run("/usr/bin/minisign", arguments) }
    static func openssl(_ arguments: [String]) throws -> Result { try run("/usr/bin/openssl", arguments) }

    struct ToolMissing: Error, CustomStringConvertible { var description: String }
}

private final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data: Data?
    func set(_ value: Data) { lock.withLock { data = value } }
    var value: Data { lock.withLock { data ?? Data() } }
}


/// A manifest-shaped message of about 3 KB, different on every call.
func sampleManifest() -> Data {
    var text = #"{"format":1,"generation":\#(UInt32.random(in: 1...UInt32.max)),"lists":["#
    for index in 0..<20 {
        let hash = (0..<8).map { _ in String(format: "%08x", UInt32.random(in: 0...UInt32.max)) }.joined()
        text += (index == 0 ? "" : ",") + #"{"id":"list-\#(index)","file":"lists/\#(hash).json","sha256":"\#(hash)","rules":\#(index * 997)}"#
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
