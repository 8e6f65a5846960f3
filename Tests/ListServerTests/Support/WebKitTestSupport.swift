import Converter
import Foundation
import ListSync
import Testing
@testable import ListOrigin
@testable import OriginRefresh

/// Paths and the verifier for tests that need real WebKitGTK, shared by the WebKit suites. A missing
/// WebKit fails the test with the install hint instead of skipping it: CI installs WebKitGTK, so a
/// skip would hide a gap.
enum WebKitTestSupport {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func verifier() throws -> WebKitVerifier {
        let location = try #require(WebKitToolLocation.find(currentDirectory: repository.path),
                                    "scripts/webkit/compile.py or a Python interpreter was not found under \(repository.path)")
        return try WebKitVerifier.probe(location)
    }

    static func source(_ relativePath: String, id: String) throws -> FilterListSource {
        let data = try Data(contentsOf: repository.appendingPathComponent(relativePath))
        return FilterListSource(id: id, bytes: Array(data))
    }

    /// The bundled 2025-10 EasyList and EasyPrivacy.
    static func snapshotSources() throws -> [FilterListSource] {
        [try source("snapshot/easylist.txt", id: "easylist"), try source("snapshot/easyprivacy.txt", id: "easyprivacy")]
    }

    /// Converts the bundled snapshot and writes it as a set directory (see `writeSet`); the caller removes it.
    static func writeConvertedSnapshot() throws -> URL {
        try writeSet(try ListConverter().convert(try snapshotSources()).lists)
    }

    /// Writes converted lists as a set directory (`<id>.json` files and a format-1 manifest) for the Python tools.
    static func writeSet(_ lists: [RuleList]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webkit-set-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var entries: [Manifest.Entry] = []
        for list in lists {
            let file = "\(list.id).json"
            try Data(list.json).write(to: directory.appendingPathComponent(file))
            entries.append(Manifest.Entry(id: list.id, file: file, sha256: SHA256Digest.hex(of: list.json), rules: list.ruleCount))
        }
        try JSONEncoder().encode(Manifest(lists: entries)).write(to: directory.appendingPathComponent("manifest.json"))
        return directory
    }

    /// Runs a script under scripts/webkit with the verifier's interpreter and returns its stdout.
    static func runScript(_ name: String, _ arguments: [String], under launcher: [String] = [], timeout: Double) throws -> (status: Int32, stdout: Data, stderr: String) {
        let location = try #require(WebKitToolLocation.find(currentDirectory: repository.path), "no Python interpreter found")
        let script = repository.appendingPathComponent("scripts/webkit/\(name)").path
        let command = launcher + [location.python.path, script] + arguments
        let finished = try ChildProcess(executable: URL(fileURLWithPath: command[0]), arguments: Array(command.dropFirst()), timeout: timeout).run()
        return (finished.status, finished.stdout, String(decoding: finished.stderr, as: UTF8.self))
    }

    static func rule(_ trigger: String) -> String {
        #"{"trigger":{\#(trigger)},"action":{"type":"block"}}"#
    }
}
