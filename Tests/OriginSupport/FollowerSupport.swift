import Converter
import Foundation
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginStore

/// Shared by the follower tests: a follower's config, /status as JSON, and the comparison of two
/// origins' served files (bytes on disk and response headers apart from Date).
package enum FollowerSupport {
    package static func day(_ index: Int) -> String { String(format: "2020-10-%02d", 19 + index) }

    package static let lists = "/work/shared/data/lists"

    package static func serveDay(_ upstream: UpstreamServer, _ index: Int) throws {
        for id in ["easylist", "easyprivacy"] {
            let body = try Data(contentsOf: URL(fileURLWithPath: "\(lists)/\(id)-\(day(index)).txt"))
            upstream.set("/\(id).txt", .serve(body: Array(body), etag: "\"\(id)-\(index)\""))
        }
    }

    /// Files in a public directory that are served or feed what is served (gzip siblings): all but
    /// the conversion report, the layout state and the provenance lines, which only a converting origin writes.
    package static func servedFiles(_ directory: String) -> [String: Data] {
        var out: [String: Data] = [:]
        let skipped: Set<String> = [PublishPlan.reportName, PublishPlan.layoutName, ProvenanceFile.fileName]
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory),
                !isDirectory.boolValue,
                !skipped.contains(name), !(name as NSString).lastPathComponent.hasPrefix(".")
            else { continue }
            out[name] = FileManager.default.contents(atPath: directory + "/" + name)
        }
        return out
    }

    /// A converting primary on day 0 of the chain: the snapshot is day 0's lists, the upstream
    /// serves day 0, and the primary has published (admin token `t`). `extra` goes into its config.
    package static func startPrimary(_ scratch: ScratchDirectory, extra: String = "") async throws
        -> (primary: ListServerProcess, directory: String, upstream: UpstreamServer)
    {
        let snap = scratch.sub("snap")
        try FileManager.default.createDirectory(atPath: snap, withIntermediateDirectories: true)
        for id in ["easylist", "easyprivacy"] {
            try FileManager.default.copyItem(atPath: "\(lists)/\(id)-\(day(0)).txt", toPath: "\(snap)/\(id).txt")
        }
        let upstream = try UpstreamServer()
        try serveDay(upstream, 0)
        let directory = scratch.sub("primary")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try ListServerProcess.writeConfig(
            directory, upstreamBase: "http://127.0.0.1:\(upstream.port)", snapshotDirectory: snap, extra: extra)
        let primary = try ListServerProcess(
            directory: directory, environment: ["LISTSERVER_ADMIN_TOKEN": "t"], timeout: 120)
        try #require(
            try await ListServerProcess.waitFor200(primary, "/manifest.json", seconds: 180) != nil,
            "the primary never published")
        return (primary, directory, upstream)
    }

    package static func writeFollowerConfig(
        _ directory: String, manifest: String, keys: [String], interval: Double = 0.3, extra: String = ""
    ) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let config = """
            {"publicDir": "public", "stateDir": "state",
             "fetch": {"connectTimeoutSeconds": 1, "totalTimeoutSeconds": 10},
             "follow": {"manifest": "\(manifest)", "trustedKeys": [\(keys.map { "\"\($0)\"" }.joined(separator: ", "))], "intervalSeconds": \(interval)}\(extra)}
            """
        try Array(config.utf8).write(to: directory + "/config.json")
    }

    package static func status(port: Int) throws -> [String: Any] {
        let response = try RawHTTPResponse.get(port: port, path: "/status")
        return (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }

    package static func follow(port: Int) throws -> [String: Any] {
        try status(port: port)["follow"] as? [String: Any] ?? [:]
    }

    /// The minisign public key an origin's /status shows: what a follower of it trusts.
    package static func publicKey(port: Int) throws -> String {
        try #require((try status(port: port)["signing"] as? [String: Any])?["publicKey"] as? String)
    }

    /// Every difference between two origins for the names served from `directory`: response heads
    /// (apart from Date) with and without gzip, and bodies. Empty when they answer alike.
    package static func headerDifferences(names: [String], primary: Int, follower: Int) throws -> [String] {
        var differences: [String] = []
        for name in names {
            for headers in [[:], ["Accept-Encoding": "gzip"]] {
                var a = try RawHTTPResponse.get(port: primary, path: "/" + name, headers: headers)
                var b = try RawHTTPResponse.get(port: follower, path: "/" + name, headers: headers)
                a.headers["date"] = nil
                b.headers["date"] = nil
                if a.status != b.status || a.headers != b.headers || a.body != b.body {
                    differences.append(
                        "\(name) \(headers): \(a.status) \(a.headers.sorted { $0.key < $1.key }) vs \(b.status) \(b.headers.sorted { $0.key < $1.key })"
                    )
                }
            }
        }
        return differences
    }

    /// The names an origin serves from its public directory (gzip siblings are representations, not URLs).
    package static func servedNames(_ files: [String: Data]) -> [String] {
        files.keys.filter { !$0.hasSuffix(".gz") }.sorted()
    }
}
