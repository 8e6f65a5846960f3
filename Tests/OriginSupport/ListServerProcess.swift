import Foundation
import ProcessRunner
import TestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A running `listserver serve` with its own config, public and state directories.
package final class ListServerProcess {
    package let process: RunningChild
    package let port: Int
    package let output: String

    package init(directory: String, environment: [String: String] = [:], timeout: Double = 60, port fixedPort: Int = 0)
        throws
    {
        let binary = try ListServerBinary.path()
        output = directory + "/serve-\(UUID().uuidString.prefix(6)).out"
        var changes: [String: String?] = ["LISTSERVER_ADMIN_TOKEN": nil]
        for (key, value) in environment { changes[key] = value }
        process = try RunningChild(
            binary, ["serve", "--config", directory + "/config.json", "--port", String(fixedPort)],
            environment: RunningChild.environment(changing: changes),
            stdout: .file(output), stderr: .file(directory + "/serve.err"))
        var found: Int?
        // Until the port is announced, or the process exits without announcing it.
        _ = eventually(timeout: timeout, interval: 0.02) { [process, output] in
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"127\.0\.0\.1:(\d+)/"#, options: .regularExpression) {
                found = Int(text[range].dropFirst("127.0.0.1:".count).dropLast())
                return true
            }
            return !process.isRunning
        }
        guard let found else {
            process.stop(grace: 5)
            throw UpstreamServer.ServerError(
                "listserver serve did not announce its port within \(timeout) s: \((try? String(contentsOfFile: directory + "/serve.err", encoding: .utf8)) ?? "")"
            )
        }
        port = found
    }

    package func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// SIGTERM and wait (bounded); returns the exit status, -1 when it had to be killed.
    package func terminate() -> Int32 {
        process.signal(SIGTERM)
        _ = eventually(timeout: 30, interval: 0.02) { !process.isRunning }
        if process.isRunning {
            process.signal(SIGKILL)
            process.wait()
            return -1
        }
        return process.wait()
    }

    deinit {
        if process.isRunning {
            process.signal(SIGKILL)
            process.wait()
        }
    }
}

extension ListServerProcess {
    package static func writeConfig(
        _ directory: String, upstreamBase: String, snapshotDirectory: String, verifyWithWebKit: String = "off",
        extra: String = ""
    ) throws {
        let config = """
            {"publicDir": "public", "stateDir": "state",
             "upstreams": [{"id": "easylist", "url": "\(upstreamBase)/easylist.txt", "snapshot": "\(snapshotDirectory)/easylist.txt"},
                           {"id": "easyprivacy", "url": "\(upstreamBase)/easyprivacy.txt", "snapshot": "\(snapshotDirectory)/easyprivacy.txt"}],
             "refresh": {"attempts": 1, "retryBaseDelaySeconds": 0.01},
             "fetch": {"connectTimeoutSeconds": 1, "totalTimeoutSeconds": 5},
             "publish": {"verifyWithWebKit": "\(verifyWithWebKit)"}\(extra)}
            """
        try Array(config.utf8).write(to: directory + "/config.json")
    }

    package static var repositorySnapshot: String {
        Repository.root.appendingPathComponent("snapshot").path
    }

    /// GET (or another method) with a fresh session; returns status and body.
    package static func request(_ url: URL, method: String = "GET", headers: [String: String] = [:]) async throws -> (
        Int, Data
    ) {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 10)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// Polls `path` until it answers 200 or `seconds` pass.
    package static func waitFor200(_ server: ListServerProcess, _ path: String, seconds: Double) async throws -> Data? {
        var found: Data?
        _ = await eventually(timeout: seconds) {
            guard let (status, data) = try? await request(server.url(path)), status == 200 else { return false }
            found = data
            return true
        }
        return found
    }

    package static func smallSnapshot(_ directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FixtureLists.easylist(lines: 300).write(to: directory + "/easylist.txt")
        try Array("[Adblock Plus 1.1]\n! Title: EasyPrivacy\n||tracker.example^\n||pixel.example^$image\n".utf8).write(
            to: directory + "/easyprivacy.txt")
    }
}

/// The `listserver` executable the tests run, and a shell for the tools around it.
package enum ListServerBinary {
    /// The listserver executable built next to the test bundle.
    package static func path() throws -> String {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
                "listserver"
            ).path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("listserver").path,
            Bundle.main.bundleURL.appendingPathComponent("listserver").path,
        ]
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw UpstreamServer.ServerError(
                "the listserver executable is not built next to the tests (looked at \(candidates)); run swift build first"
            )
        }
        return path
    }

    /// Runs a command, returning its exit status and output.
    @discardableResult
    package static func shell(_ command: String) -> (status: Int32, output: String) {
        do {
            let run = try ChildRun.shell(command + " 2>&1")
            return (run.status, run.stdoutText)
        } catch {
            return (-1, "\(error)")
        }
    }
}
