import Converter
import Foundation

/// Compiles content-blocker lists with real WebKit (WebKitGTK's `UserContentFilterStore`, the same
/// ContentExtensions compiler as Safari's `WKContentRuleListStore`) through `scripts/webkit/compile.py`.
/// WebKit rejects a whole list for one bad url-filter, so this is the only proof a list will load
/// on a device.
///
/// Use `WebKitVerifier.available()` to get one (nil when WebKitGTK or the helper is missing), then
/// `verify(_:)` a batch of lists; each list gets a `Verdict`.
package struct WebKitVerifier: Sendable {
    /// The outcome for one list.
    package struct Verdict: Sendable, Equatable, Decodable {
        package var id: String
        /// Rules in the JSON array, nil when the bytes are not a JSON array.
        package var rules: Int?
        /// WebKit's error message (plus its stderr detail for regex errors); nil when the list compiled.
        package var error: String?
        /// Wall-clock compile time in WebKit.
        package var seconds: Double
        package var ok: Bool { error == nil }
    }

    package enum Failure: Error, CustomStringConvertible, Equatable {
        case unavailable(String)
        case helperFailed(status: Int32, stderr: String)
        case malformedOutput(String)
        case cannotStage(String)

        package var description: String {
            switch self {
            case let .unavailable(reason):
                return "WebKit verifier unavailable: \(reason) (install gir1.2-webkit2-4.1 and python3-gi, or set \(WebKitToolLocation.pythonOverride))"
            case let .helperFailed(status, stderr):
                return "WebKit compile helper exited with status \(status): \(stderr.suffix(500))"
            case let .malformedOutput(detail):
                return "WebKit compile helper printed output that is not its JSON report: \(detail)"
            case let .cannotStage(detail):
                return "cannot write lists to a temporary directory for WebKit: \(detail)"
            }
        }
    }

    /// Exit statuses of compile.py.
    private enum HelperStatus {
        static let ok: Int32 = 0, failures: Int32 = 1, unavailable: Int32 = 3
    }

    package var location: WebKitToolLocation
    /// WebKitGTK version reported by the probe, e.g. `2.50.6`.
    package var webKitVersion: String
    /// Seconds allowed per list; a 150,000-rule list compiles in 11–17 s here.
    package var timeoutPerList: Double = 180

    /// A verifier when the helper is found and WebKit2 4.1 imports; nil otherwise (the "auto" gate).
    static func available(location: WebKitToolLocation? = WebKitToolLocation.find(), timeout: Double = 60) -> WebKitVerifier? {
        guard let location else { return nil }
        return try? probe(location, timeout: timeout)
    }

    /// Checks that WebKit imports; throws `.unavailable` with the reason when it does not.
    package static func probe(_ location: WebKitToolLocation, timeout: Double = 60) throws -> WebKitVerifier {
        let finished: ChildProcess.Finished
        do {
            finished = try ChildProcess(executable: location.python, arguments: [location.script.path, "--probe", "--json"], timeout: timeout).run()
        } catch {
            throw Failure.unavailable("\(error)")
        }
        guard finished.status == HelperStatus.ok else {
            throw Failure.unavailable(String(decoding: finished.stderr, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        struct Probe: Decodable { var webkit: String }
        guard let probe = try? JSONDecoder().decode(Probe.self, from: finished.stdout) else {
            throw Failure.malformedOutput(String(decoding: finished.stdout.prefix(200), as: UTF8.self))
        }
        return WebKitVerifier(location: location, webKitVersion: probe.webkit)
    }

    /// Compiles each list (id and JSON bytes) in WebKit, in order. Throws only when WebKit could not be
    /// run at all; a list WebKit rejects is a verdict with `error` set.
    package func verify(_ lists: [(id: String, json: [UInt8])]) throws -> [Verdict] {
        let staging = FileManager.default.temporaryDirectory.appendingPathComponent("listserver-verify-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: staging) }
        var files: [(id: String, path: String)] = []
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
            for (index, list) in lists.enumerated() {
                let file = staging.appendingPathComponent("\(index).json")
                try Data(list.json).write(to: file)
                files.append((list.id, file.path))
            }
        } catch {
            throw Failure.cannotStage("\(error.localizedDescription)")
        }
        return try verify(files: files)
    }

    /// Compiles the converter's lists.
    package func verify(_ lists: [RuleList]) throws -> [Verdict] {
        try verify(lists.map { (id: $0.id, json: $0.json) })
    }

    /// Compiles list files already on disk (as `listserver verify` does for a published set).
    package func verify(files: [(id: String, path: String)]) throws -> [Verdict] {
        guard !files.isEmpty else { return [] }
        struct Request: Encodable {
            struct Item: Encodable { var id: String; var path: String }
            var lists: [Item]
        }
        let request = try JSONEncoder().encode(Request(lists: files.map { .init(id: $0.id, path: $0.path) }))
        let helper = ChildProcess(
            executable: location.python,
            arguments: [location.script.path, "--json", "--timeout", String(timeoutPerList), "-"],
            stdin: request,
            timeout: timeoutPerList * Double(files.count) + 30
        )
        let finished = try helper.run()
        let stderr = String(decoding: finished.stderr, as: UTF8.self)
        switch finished.status {
        case HelperStatus.ok, HelperStatus.failures: break
        case HelperStatus.unavailable: throw Failure.unavailable(stderr.trimmingCharacters(in: .whitespacesAndNewlines))
        default: throw Failure.helperFailed(status: finished.status, stderr: stderr)
        }
        struct Report: Decodable { var lists: [Verdict] }
        guard let report = try? JSONDecoder().decode(Report.self, from: finished.stdout), report.lists.count == files.count else {
            throw Failure.malformedOutput(String(decoding: finished.stdout.prefix(200), as: UTF8.self))
        }
        return report.lists
    }
}
