import Foundation
import Testing
import TestSupport
@testable import ListOrigin

/// REDbot's protocol and caching checks against the real server: `scripts/redbot-check.sh` must
/// find no BAD note on the manifest, a list chunk, a stable alias and the alias index (JSON and
/// HTML). Fails (not skips) when REDbot is missing.
@Suite struct HTTPRedbotTests {
    @Test func redbotFindsNoBadNotes() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let script = root + "/scripts/redbot-check.sh"
        #expect(FileManager.default.isExecutableFile(atPath: root + "/.venv/bin/redbot"),
                "REDbot missing: create .venv and `pip install redbot` (scripts/setup.sh)")
        let harness = try ServerHarness()
        defer { harness.stop() }
        let outputPath = NSTemporaryDirectory() + "redbot-check-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let status = try Self.run(["/bin/bash", script, "http://127.0.0.1:\(harness.port)", harness.fileNames[0],
                                   "lists/network-00.json", "lists/", "lists/index.html"], outputPath: outputPath, limit: 300)
        let data = (try? Data(contentsOf: URL(fileURLWithPath: outputPath))) ?? Data()
        let text = String(decoding: data, as: UTF8.self)
        #expect(status == 0, "redbot-check.sh failed (status \(String(describing: status))):\n\(text)")
        #expect(text.contains("GOOD VALIDATION If-None-Match"), "\(text)")
        #expect(text.contains("no BAD notes"))
        #expect(text.components(separatedBy: "\n== ").count == 5, "five URLs checked:\n\(text)")
    }

    /// Runs a command with stdout and stderr to a file and waits (bounded) with waitpid.
    /// posix_spawn rather than Foundation's Process: output goes to a file, so no pipe end can be
    /// inherited by a process another test spawns meanwhile, and the wait does not depend on a
    /// Dispatch source that busy parallel tests could starve. nil = killed after `limit` seconds.
    private static func run(_ arguments: [String], outputPath: String, limit: Double) throws -> Int32? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ)
        guard spawned == 0 else { throw RawHTTPClient.Failure(description: "posix_spawn \(arguments[0]) failed: \(spawned)") }
        var status: Int32 = 0
        guard eventually(timeout: limit, { waitpid(pid, &status, WNOHANG) != 0 }) else {
            kill(pid, SIGKILL)
            _ = waitpid(pid, &status, 0)
            return nil
        }
        // WIFEXITED / WEXITSTATUS without the C macros.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
