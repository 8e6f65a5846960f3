import Foundation
import OriginTestSupport
import TestSupport
import Testing

/// Any origin fed the same input writes the same bytes. Swift seeds its hashing per process, so
/// dictionary or set order that leaked into the output would differ between processes: this runs
/// `listserver convert` (a first day, then the next day with `--previous`) in separate processes,
/// two with random seeds and one with `SWIFT_DETERMINISTIC_HASHING`, and compares every file written.
@Suite struct ConvertDeterminismTests {
    static let lists = Repository.fixtures.appendingPathComponent("lists")

    @Test func separateProcessesWriteIdenticalBytes() throws {
        let binary = try ListServerBinary.path()
        let scratch = ScratchDirectory("determinism")
        let runs: [(label: String, environment: [String: String?])] = [
            ("seed-a", ["SWIFT_DETERMINISTIC_HASHING": nil]),
            ("seed-b", ["SWIFT_DETERMINISTIC_HASHING": nil]),
            ("deterministic", ["SWIFT_DETERMINISTIC_HASHING": "1"]),
        ]
        var outputs: [String: [String: Data]] = [:]
        for run in runs {
            var previous: String?
            for day in ["28", "29"] {
                let out = scratch.sub("\(run.label)/\(day)")
                let arguments =
                    [
                        "convert", "--input", Self.lists.appendingPathComponent("easylist-2020-10-\(day).txt").path,
                        Self.lists.appendingPathComponent("easyprivacy-2020-10-\(day).txt").path, "--out", out,
                    ]
                    + (previous.map { ["--previous", $0] } ?? [])
                let finished = try ChildRun.run(binary, arguments, environment: run.environment, timeout: 120)
                try #require(finished.status == 0, "\(run.label) day \(day): \(finished.stderr)")
                previous = out
            }
            outputs[run.label] = try Self.files(scratch.sub(run.label))
        }
        let reference = try #require(outputs["seed-a"])
        #expect(
            reference.keys.contains { $0.hasSuffix(".json.gz") } && reference.count > 20, "\(reference.keys.sorted())")
        #expect(
            reference.keys.filter { $0.hasSuffix("/provenance.txt") }.count == 2,
            "provenance is published with each day's set")
        for run in runs.dropFirst() {
            let files = try #require(outputs[run.label])
            #expect(files.keys.sorted() == reference.keys.sorted(), "\(run.label): other file names")
            let differing = reference.keys.filter { files[$0] != reference[$0] }.sorted()
            #expect(differing.isEmpty, "\(run.label): bytes differ in \(differing)")
        }
    }

    /// Every regular file under `directory` by relative path.
    static func files(_ directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = try #require(FileManager.default.enumerator(atPath: directory))
        for case let path as String in enumerator {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files[path] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + path))
            }
        }
        return files
    }
}
