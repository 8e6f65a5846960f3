import Foundation
import ListOrigin
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Varnish (Debian's `varnishd`) as a local CDN edge: started on a free loopback port with its own
/// `-n` work directory and `scripts/varnish/cdn.vcl` pointed at the origin, killed by `stop()`.
package final class VarnishCDN {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        package init(description: String) { self.description = description }
    }

    package static let varnishd = "/usr/sbin/varnishd"

    package let port: Int
    package let workdir: TemporaryDirectory
    private let process: RunningChild
    private let logPath: String

    /// `secondPort`: a second origin (a follower) behind the VCL's fallback director; nil: both backends are `originPort`.
    package init(originPort: Int, secondPort: Int? = nil) throws {
        for tool in [Self.varnishd] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw Failure(
                description:
                    "\(tool) not found: install Varnish with `apt-get install -y varnish` (scripts/setup.sh test does)")
        }
        workdir = try TemporaryDirectory("varnish")
        let template = try String(contentsOfFile: Self.repositoryRoot + "/scripts/varnish/cdn.vcl", encoding: .utf8)
        let vcl = template.replacingOccurrences(of: "__ORIGIN_HOST__", with: "127.0.0.1")
            .replacingOccurrences(of: "__ORIGIN_PORT__", with: String(originPort))
            .replacingOccurrences(of: "__SECOND_HOST__", with: "127.0.0.1")
            .replacingOccurrences(of: "__SECOND_PORT__", with: String(secondPort ?? originPort))
            .replacingOccurrences(of: "__TWO_ORIGINS__", with: secondPort == nil ? "no" : "yes")
        let vclPath = workdir.path + "/cdn.vcl"
        try vcl.write(toFile: vclPath, atomically: true, encoding: .utf8)
        port = try Self.freeLoopbackPort()
        logPath = workdir.path + "/varnishd.log"
        // -F: foreground, so terminating this process ends Varnish. default_grace=0: no grace
        // beyond what the origin's stale-while-revalidate grants (honour the origin's headers).
        // stdout and stderr both to the log: the shell's 2>&1 keeps one file description.
        let arguments = [
            "-F", "-n", workdir.path, "-a", "127.0.0.1:\(port)", "-f", vclPath,
            "-s", "malloc,64m", "-p", "default_grace=0", "-p", "thread_pool_min=20",
        ]
        process = try RunningChild(
            "/bin/sh", ["-c", #"exec "$0" "$@" >"$LOG" 2>&1"#, Self.varnishd] + arguments,
            environment: RunningChild.environment(changing: ["LOG": logPath]))
        // Bounded wait for the listener (VCL compilation takes a second or two).
        let listening = eventually(timeout: 20, interval: 0.1) { [process, port] in
            Self.accepts(port: port) || !process.isRunning
        }
        if !listening || !process.isRunning {
            let output = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            stop()
            throw Failure(description: "varnishd did not start listening on 127.0.0.1:\(port) within 20 s:\n\(output)")
        }
    }

    package var baseURL: String { "http://127.0.0.1:\(port)" }

    package func stop() {
        if process.isRunning {
            process.signal(SIGTERM)
            _ = eventually(timeout: 10) { [process] in !process.isRunning }
            process.signal(SIGKILL)
            process.wait()
        }
        workdir.remove()
    }

    // MARK: helpers

    package static var repositoryRoot: String {
        Repository.root.path
    }

    /// A port the kernel just handed out on 127.0.0.1 and that is free again.
    package static func freeLoopbackPort() throws -> Int {
        let (fd, port) = try LoopbackSocket.listen(backlog: 1)
        close(fd)
        return port
    }

    package static func accepts(port: Int) -> Bool {
        guard let fd = try? LoopbackSocket.connect(port: port, timeout: 1) else { return false }
        close(fd)
        return true
    }
}

/// A byte-exact HTTP/1.1 GET over a loopback socket: no automatic decompression, so tests can
/// compare the raw gzip or range bytes a client receives.
package struct RawHTTPResponse {
    package var status: Int
    /// Header names lowercased.
    package var headers: [String: String]
    package var body: [UInt8]

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        package init(description: String) { self.description = description }
    }

    package static func get(port: Int, path: String, headers: [String: String] = [:]) throws -> RawHTTPResponse {
        let fd: Int32
        do {
            fd = try LoopbackSocket.connect(port: port)
        } catch {
            throw Failure(description: "\(error)")
        }
        defer { close(fd) }
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            throw Failure(description: "send failed: errno \(errno)")
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while received.count < 64 << 20 {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count < 0 { throw Failure(description: "recv failed: errno \(errno)") }
            if count == 0 { break }
            received += buffer[0..<count]
        }
        guard
            let end = (0..<max(0, received.count - 3)).first(where: {
                received[$0] == 13 && received[$0 + 1] == 10 && received[$0 + 2] == 13 && received[$0 + 3] == 10
            })
        else {
            throw Failure(description: "no complete response head from 127.0.0.1:\(port)\(path)")
        }
        let lines = String(decoding: received[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line \(lines[0])")
        }
        var parsed: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            parsed[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(received[(end + 4)...])
        if parsed["transfer-encoding"]?.lowercased() == "chunked" {
            body = try dechunk(body)
        } else if let length = parsed["content-length"].flatMap({ Int($0) }), body.count > length {
            body = Array(body.prefix(length))
        }
        return RawHTTPResponse(status: status, headers: parsed, body: body)
    }

    /// Joins a chunked body (RFC 9112 §7.1), ignoring chunk extensions and trailers.
    package static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while true {
            guard
                let lineEnd = (index..<max(index, bytes.count - 1)).first(where: {
                    bytes[$0] == 13 && bytes[$0 + 1] == 10
                })
            else {
                throw Failure(description: "chunked body ends without a last chunk")
            }
            let sizeText =
                String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first.map(String.init)
                ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw Failure(description: "bad chunk size line \"\(sizeText)\"")
            }
            index = lineEnd + 2
            if size == 0 { return out }
            guard index + size + 2 <= bytes.count else {
                throw Failure(description: "chunk runs past the end of the body")
            }
            out += bytes[index..<index + size]
            index += size + 2
        }
    }
}

/// Byte equality as a plain Bool, so a failure does not print whole bodies.
package func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool { a == b }
