import Converter
import Foundation
import ListSync
import TestSupport
import Testing
import WebKitCompiler

@testable import ListOrigin
@testable import OriginRefresh

/// Paths and the compiler for tests that need real WebKitGTK, shared by the WebKit suites. A missing
/// WebKit fails the test with the install hint instead of skipping it: CI installs WebKitGTK, so a
/// skip would hide a gap.
package enum WebKitTestSupport {

    /// The built `listserver` as the WebKit compile helper, as the server starts it.
    package static func helper(environment: [String: String?] = [:]) throws -> WebKitCompiler.Helper {
        WebKitCompiler.Helper(
            executable: try ListServerBinary.path(), environment: RunningChild.environment(changing: environment))
    }

    /// One helper, started (WebKit loaded) before it is returned.
    package static func compiler() throws -> WebKitCompiler {
        try WebKitCompiler(helper: try helper())
    }

    /// The Python that runs the test tools under scripts/webkit: the project venv (it sees the system's
    /// PyGObject), else the system's.
    package static var python: String {
        let venv = Repository.root.appendingPathComponent(".venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: venv) ? venv : "/usr/bin/python3"
    }

    package static func source(_ relativePath: String, id: String) throws -> FilterListSource {
        let data = try Data(contentsOf: Repository.root.appendingPathComponent(relativePath))
        return FilterListSource(id: id, bytes: Array(data))
    }

    /// The bundled 2025-10 EasyList and EasyPrivacy.
    package static func snapshotSources() throws -> [FilterListSource] {
        [
            try source("snapshot/easylist.txt", id: "easylist"),
            try source("snapshot/easyprivacy.txt", id: "easyprivacy"),
        ]
    }

    /// Converts the bundled snapshot and writes it as a set directory (see `writeSet`); the caller removes it.
    package static func writeConvertedSnapshot() throws -> URL {
        try writeSet(try ListConverter().convert(try snapshotSources()).lists)
    }

    /// Writes converted lists as a set directory (`<id>.json` files and a format-1 manifest) for the Python tools.
    package static func writeSet(_ lists: [RuleList]) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webkit-set-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var entries: [Manifest.Entry] = []
        for list in lists {
            let file = "\(list.id).json"
            try Data(list.json).write(to: directory.appendingPathComponent(file))
            entries.append(
                Manifest.Entry(id: list.id, file: file, sha256: SHA256Digest.hex(of: list.json), rules: list.ruleCount))
        }
        try JSONEncoder().encode(Manifest(lists: entries)).write(to: directory.appendingPathComponent("manifest.json"))
        return directory
    }

    /// Runs a script under scripts/webkit with `python` and returns its stdout.
    package static func runScript(_ name: String, _ arguments: [String], under launcher: [String] = [], timeout: Double)
        throws -> (status: Int32, stdout: Data, stderr: String)
    {
        let script = Repository.root.appendingPathComponent("scripts/webkit/\(name)").path
        let command = launcher + [python, script] + arguments
        let finished = try ChildRun.run(command[0], Array(command.dropFirst()), timeout: timeout)
        return (finished.status, finished.stdout, finished.stderr)
    }

    /// Runs hiding_check.py under Xvfb on `plan` (see the script for its keys), written to a
    /// temporary file: what each document hid, `{page: {document: [hidden ids]}}`.
    package static func hidingCheck(_ plan: [String: Any], timeout: Double = 300) throws -> [String: [String: [String]]]
    {
        let xvfb = "/usr/bin/xvfb-run"
        try #require(FileManager.default.isExecutableFile(atPath: xvfb), "xvfb-run is missing: apt-get install -y xvfb")
        let planFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hiding-plan-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: plan).write(to: planFile)
        defer { try? FileManager.default.removeItem(at: planFile) }
        let finished = try runScript("hiding_check.py", [planFile.path], under: [xvfb, "-a"], timeout: timeout)
        try #require(finished.status == 0, "hiding_check.py: \(finished.stderr)")
        return try #require(
            try JSONSerialization.jsonObject(with: finished.stdout) as? [String: [String: [String]]],
            "\(String(decoding: finished.stdout, as: UTF8.self)) \(finished.stderr)")
    }

    package static func rule(_ trigger: String) -> String {
        #"{"trigger":{\#(trigger)},"action":{"type":"block"}}"#
    }
}
