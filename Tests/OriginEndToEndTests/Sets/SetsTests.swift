import Foundation
import ListFormat
import ListSync
import OriginTestSupport
import TestSupport
import Testing

/// One origin publishing three sets (`default`: safari-17, `modern`: safari-26, `de`: the default
/// upstreams plus a regional list from a loopback upstream), as a real `listserver serve` process.
@Suite(.serialized) struct SetsTests {
    /// A small regional list only the `de` set converts; its rule names a host no other list has.
    static let regionalList = Array(
        "[Adblock Plus 2.0]\n! Title: Test regional list\n||werbung-regional.example^\n##.regional-anzeige\n".utf8)
    static let regionalHost = "werbung-regional"
    /// A `$domain` rule added to EasyPrivacy: each set's target decides how its condition is written.
    static let framedRule = "||framed-tracker.example^$domain=news.example"

    /// A primary with three sets over a loopback upstream; `regional` is what the upstream answers for the regional list.
    static func startPrimary(_ scratch: ScratchDirectory, regional: UpstreamServer.Behavior, extra: String = "")
        async throws
        -> (server: ListServerProcess, upstream: UpstreamServer)
    {
        let snapshot = scratch.sub("snapshot")
        try ListServerProcess.smallSnapshot(snapshot)
        let upstream = try UpstreamServer()
        let easyprivacy = snapshot + "/easyprivacy.txt"
        try (Array(try Data(contentsOf: URL(fileURLWithPath: easyprivacy))) + Array("\(Self.framedRule)\n".utf8)).write(
            to: easyprivacy)
        for id in ["easylist", "easyprivacy"] {
            upstream.set(
                "/\(id).txt",
                .serve(
                    body: Array(try Data(contentsOf: URL(fileURLWithPath: snapshot + "/\(id).txt"))), etag: "\"\(id)\"")
            )
        }
        upstream.set("/easylistgermany.txt", regional)
        let base = "http://127.0.0.1:\(upstream.port)"
        let config = """
            {"publicDir": "public", "stateDir": "state",
             "upstreams": [{"id": "easylist", "url": "\(base)/easylist.txt", "snapshot": "\(snapshot)/easylist.txt"},
                           {"id": "easyprivacy", "url": "\(base)/easyprivacy.txt", "snapshot": "\(snapshot)/easyprivacy.txt"},
                           {"id": "easylistgermany", "url": "\(base)/easylistgermany.txt"}],
             "sets": [{"name": "default", "upstreams": ["easylist", "easyprivacy"], "target": "safari-17"},
                      {"name": "modern", "upstreams": ["easylist", "easyprivacy"], "target": "safari-26"},
                      {"name": "de", "upstreams": ["easylist", "easyprivacy", "easylistgermany"]}],
             "refresh": {"attempts": 1, "retryBaseDelaySeconds": 0.01},
             "fetch": {"connectTimeoutSeconds": 1, "totalTimeoutSeconds": 5},
             "publish": {"verifyWithWebKit": "off"}\(extra)}
            """
        try Array(config.utf8).write(to: scratch.sub("config.json"))
        let server = try ListServerProcess(
            directory: scratch.path, environment: ["LISTSERVER_ADMIN_TOKEN": "t"], timeout: 120)
        return (server, upstream)
    }

    static func json(_ server: ListServerProcess, _ path: String) throws -> [String: Any] {
        let response = try RawHTTPResponse.get(port: server.port, path: path)
        return (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }

    /// The `/sets/` entries by name.
    static func index(_ server: ListServerProcess) throws -> [String: [String: Any]] {
        let sets = try json(server, "/sets/")["sets"] as? [[String: Any]] ?? []
        return Dictionary(
            sets.compactMap { entry in (entry["name"] as? String).map { ($0, entry) } }, uniquingKeysWith: { a, _ in a }
        )
    }

    /// Verifies a set's manifest with minisign as a client would fetch it; returns the manifest bytes.
    static func verifiedManifest(
        _ server: ListServerProcess, path: String, publicKey: String, scratch: ScratchDirectory
    ) throws -> [UInt8] {
        let manifest = try RawHTTPResponse.get(port: server.port, path: path)
        try #require(manifest.status == 200, "\(path): \(manifest.status)")
        let directory = String(path.dropLast("manifest.json".count))
        let signature = try RawHTTPResponse.get(
            port: server.port, path: directory + "signatures/\(SHA256Digest.hex(of: manifest.body)).minisig")
        #expect(signature.status == 200, "\(path): its signature is served beside it")
        let name = path.replacingOccurrences(of: "/", with: "_")
        try manifest.body.write(to: scratch.sub(name))
        try signature.body.write(to: scratch.sub(name + ".minisig"))
        let verified = try ChildRun.run(
            "/usr/bin/minisign", ["-V", "-P", publicKey, "-m", scratch.sub(name), "-x", scratch.sub(name + ".minisig")])
        #expect(verified.status == 0, "\(path): minisign: \(verified.output)")
        let decoded = try Manifest.decode(Data(manifest.body))
        for list in decoded.lists {
            let file = try RawHTTPResponse.get(port: server.port, path: directory + list.file)
            #expect(file.status == 200 && SHA256Digest.hex(of: file.body) == list.sha256, "\(directory)\(list.file)")
        }
        return manifest.body
    }

    /// Every list body a set's manifest names, concatenated (to look for a rule).
    static func listText(_ server: ListServerProcess, directory: String) throws -> String {
        let manifest = try Manifest.decode(
            Data(try RawHTTPResponse.get(port: server.port, path: directory + "manifest.json").body))
        return try manifest.lists.map {
            String(decoding: try RawHTTPResponse.get(port: server.port, path: directory + $0.file).body, as: UTF8.self)
        }
        .joined()
    }

    @Test func threeSetsAreServedSignedAndListedAndTheOldURLsServeTheDefaultSet() async throws {
        let scratch = ScratchDirectory("sets-three")
        let (server, upstream) = try await Self.startPrimary(
            scratch, regional: .serve(body: Self.regionalList, etag: "\"de\""))
        defer {
            _ = server.terminate()
            upstream.stop()
        }
        // The cold start publishes from the snapshots; the first fetch then brings the regional list.
        try #require(
            try await eventually(timeout: 180) {
                (try? Self.listText(server, directory: "/sets/de/").contains(Self.regionalHost)) == true
            }, "the regional set never carried its regional list")
        // /sets/ names every set with its target, upstreams and absolute manifest URL.
        let index = try Self.index(server)
        #expect(Set(index.keys) == ["default", "modern", "de"])
        #expect(index["modern"]?["target"] as? String == "safari-26")
        #expect(index["default"]?["target"] as? String == "safari-17")
        #expect(index["de"]?["upstreams"] as? [String] == ["easylist", "easyprivacy", "easylistgermany"])
        #expect(index["de"]?["manifest"] as? String == "http://127.0.0.1:\(server.port)/sets/de/manifest.json")
        #expect(try Self.json(server, "/sets/")["default"] as? String == "default")
        let page = try RawHTTPResponse.get(port: server.port, path: "/sets/", headers: ["Accept": "text/html"])
        #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(String(decoding: page.body, as: UTF8.self).contains("/sets/modern/manifest.json"))

        // Each set's manifest is signed by the origin's key and names files it serves.
        let key = try FollowerSupport.publicKey(port: server.port)
        var manifests: [String: [UInt8]] = [:]
        for name in ["default", "modern", "de"] {
            manifests[name] = try Self.verifiedManifest(
                server, path: "/sets/\(name)/manifest.json", publicKey: key, scratch: scratch)
        }
        // The old URLs serve the default set, byte for byte, from the directory a single-set origin uses.
        let root = try Self.verifiedManifest(server, path: "/manifest.json", publicKey: key, scratch: scratch)
        #expect(root == manifests["default"])
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: scratch.sub("public/manifest.json")))) == root)
        #expect(
            Array(try Data(contentsOf: URL(fileURLWithPath: scratch.sub("public/sets/de/manifest.json"))))
                == manifests["de"])
        let firstID = try #require(try Manifest.decode(Data(root)).lists.first?.id)
        #expect(
            try RawHTTPResponse.get(port: server.port, path: "/lists/\(firstID).json").body
                == RawHTTPResponse.get(port: server.port, path: "/sets/default/lists/\(firstID).json").body)
        #expect(try RawHTTPResponse.get(port: server.port, path: "/sets/de/lists/\(firstID).json").status == 200)

        // Each set converts for its target: the safari-26 set judges `$domain` in the frame, the others on the top page.
        let modernText = try Self.listText(server, directory: "/sets/modern/")
        let defaultText = try Self.listText(server, directory: "/")
        #expect(
            modernText.contains("framed-tracker") && modernText.contains("if-frame-url"),
            "the modern set converts for safari-26")
        #expect(
            defaultText.contains("framed-tracker") && !defaultText.contains("if-frame-url"),
            "the default set converts for safari-17")
        // Only the regional set carries the regional list's rules.
        #expect(try Self.listText(server, directory: "/sets/de/").contains(Self.regionalHost))
        #expect(!(try Self.listText(server, directory: "/").contains(Self.regionalHost)))
        #expect(!(try Self.listText(server, directory: "/sets/modern/").contains(Self.regionalHost)))
        // Status, metrics and explain cover every set.
        let statusSets = try Self.json(server, "/status")["sets"] as? [[String: Any]] ?? []
        #expect(statusSets.map { $0["name"] as? String } == ["default", "modern", "de"])
        #expect(
            statusSets.allSatisfy { ($0["lists"] as? Int ?? 0) > 0 && $0["manifestSHA256"] is String }, "\(statusSets)")
        let statusPage = try RawHTTPResponse.get(port: server.port, path: "/status", headers: ["Accept": "text/html"])
        #expect(String(decoding: statusPage.body, as: UTF8.self).contains("data-set=\"modern\""))
        let metrics = String(decoding: try RawHTTPResponse.get(port: server.port, path: "/metrics").body, as: UTF8.self)
        for name in ["default", "modern", "de"] {
            #expect(metrics.contains("listserver_set_installed{set=\"\(name)\""), "\(name) in /metrics")
        }
        func verdict(_ set: String?) async throws -> String? {
            var verdict: String?
            _ = try await eventually(timeout: 60) {
                let target =
                    "/explain?url=https%3A%2F%2F\(Self.regionalHost).example%2Fa.js" + (set.map { "&set=" + $0 } ?? "")
                let answer = try RawHTTPResponse.get(
                    port: server.port, path: target, headers: ["Authorization": "Bearer t"])
                guard answer.status == 200 else { return false }
                let object = (try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]) ?? [:]
                verdict = (object["explanation"] as? [String: Any])?["verdict"] as? String
                return true
            }
            return verdict
        }
        #expect(try await verdict("de") == "blocked", "the regional set blocks its host")
        #expect(try await verdict(nil) != "blocked", "the default set does not")
        #expect(try await verdict("default") != "blocked")
        #expect(
            try RawHTTPResponse.get(
                port: server.port, path: "/explain?url=https%3A%2F%2Fa.example%2F&set=nope",
                headers: ["Authorization": "Bearer t"]
            ).status == 404)

        // A device picks its set from /sets/ by its WebKit and syncs that set's signed manifest.
        let binary = try ListServerBinary.path()
        for (flags, expected) in [
            (["--target", "safari-26"], "modern"), (["--target", "safari-17"], "default"),
            (["--webkit-version", "2.50.6"], "modern"), (["--webkit-version", "2.48.3"], "default"),
        ] {
            let store = scratch.sub("device-\(flags.joined(separator: "-"))")
            let run = try ChildRun.run(
                binary,
                ["sync", "--sets", server.url("/sets/").absoluteString, "--dir", store, "--trusted-key", key, "--json"]
                    + flags)
            #expect(run.status == 0, "\(flags): \(run.output)")
            let report = (try? JSONSerialization.jsonObject(with: run.stdout) as? [String: Any]) ?? [:]
            #expect((report["set"] as? [String: Any])?["name"] as? String == expected, "\(flags): \(run.output)")
            #expect(
                report["manifestURL"] as? String == "http://127.0.0.1:\(server.port)/sets/\(expected)/manifest.json",
                "\(flags): \(run.output)")
        }

        // The reference device picks by its own WebKitGTK version, then compiles the chosen set in WebKit.
        let device = try WebKitTestSupport.runScript(
            "device.py",
            [
                "--store", scratch.sub("webkit-store"), "--dir", scratch.sub("device-webkit"), "--listserver", binary,
                "--sets", server.url("/sets/").absoluteString, "--json", "--", "--trusted-key", key,
            ], timeout: 300)
        #expect(device.status == 0, "device.py: \(device.stderr)")
        let deviceReport = (try? JSONSerialization.jsonObject(with: device.stdout) as? [String: Any]) ?? [:]
        let deviceSync = deviceReport["sync"] as? [String: Any] ?? [:]
        let version = try #require(deviceSync["webkitVersion"] as? String, "\(deviceReport)")
        let wanted = DeviceTarget.webKitGTK(version: version) == .safari26 ? "modern" : "default"
        #expect(
            (deviceSync["set"] as? [String: Any])?["name"] as? String == wanted, "WebKitGTK \(version): \(deviceReport)"
        )
        #expect(
            (deviceReport["failed"] as? [Any])?.isEmpty == true
                && (deviceReport["compiled"] as? [Any])?.isEmpty == false, "\(deviceReport)")

        // The regional upstream was fetched once, though one set uses it; the shared ones once for three sets.
        #expect(upstream.requests(for: "/easylistgermany.txt").count == 1)
        #expect(upstream.requests(for: "/easylist.txt").count == 1)
    }

    @Test func aSetThatCannotConvertKeepsItsPlaceAndDoesNotStopTheOthers() async throws {
        let scratch = ScratchDirectory("sets-failing")
        let (server, upstream) = try await Self.startPrimary(scratch, regional: .status(503))
        defer {
            _ = server.terminate()
            upstream.stop()
        }
        var status: [String: Any] = [:]
        try #require(
            try await eventually(timeout: 180) {
                status = try Self.json(server, "/status")
                return (status["lastRefresh"] as? [String: Any])?["result"] as? String == "failed"
            }, "the refresh with the failing set never reported failed: \(status["lastRefresh"] ?? "none")")
        let error = (status["lastRefresh"] as? [String: Any])?["error"] as? String ?? ""
        #expect(error.contains("set de: no usable copy of easylistgermany"), "the failing set is named: \(error)")
        // The cold start's sets stay served: `de` as it was (without its regional list), the others whole.
        for path in ["/manifest.json", "/sets/modern/manifest.json", "/sets/de/manifest.json"] {
            #expect(try RawHTTPResponse.get(port: server.port, path: path).status == 200, "\(path)")
        }
        #expect(!(try Self.listText(server, directory: "/sets/de/").contains(Self.regionalHost)))
        let defaultBefore = try RawHTTPResponse.get(port: server.port, path: "/manifest.json").body

        // Once its upstream answers, the next refresh publishes it.
        upstream.set("/easylistgermany.txt", .serve(body: Self.regionalList, etag: "\"de\""))
        #expect(
            try await ListServerProcess.request(
                server.url("/admin/refresh"), method: "POST", headers: ["Authorization": "Bearer t"]
            ).0 == 202)
        #expect(
            try await eventually(timeout: 60) {
                try Self.listText(server, directory: "/sets/de/").contains(Self.regionalHost)
            })
        #expect(
            try RawHTTPResponse.get(port: server.port, path: "/manifest.json").body == defaultBefore,
            "the default set did not change")
    }

    @Test func aFollowerMirrorsEverySet() async throws {
        let scratch = ScratchDirectory("sets-follow")
        let (primary, upstream) = try await Self.startPrimary(
            scratch, regional: .serve(body: Self.regionalList, etag: "\"de\""))
        defer {
            _ = primary.terminate()
            upstream.stop()
        }
        try #require(
            try await eventually(timeout: 180) {
                (try? Self.listText(primary, directory: "/sets/de/").contains(Self.regionalHost)) == true
            }, "the primary never published its regional set")
        let key = try FollowerSupport.publicKey(port: primary.port)
        let directory = scratch.sub("follower")
        try FollowerSupport.writeFollowerConfig(
            directory, manifest: primary.url("/manifest.json").absoluteString, keys: [key])
        let follower = try ListServerProcess(directory: directory, timeout: 60)
        defer { _ = follower.terminate() }
        for name in ["default", "modern", "de"] {
            let path = "/sets/\(name)/manifest.json"
            let mirrored = try await eventually(timeout: 60) {
                let theirs = try RawHTTPResponse.get(port: follower.port, path: path)
                let ours = try RawHTTPResponse.get(port: primary.port, path: path)
                return theirs.status == 200 && theirs.body == ours.body
            }
            #expect(mirrored, "the follower never served the primary's \(path)")
            _ = try Self.verifiedManifest(follower, path: path, publicKey: key, scratch: scratch)
        }
        #expect(try Self.listText(follower, directory: "/sets/de/").contains(Self.regionalHost))
        #expect(
            try RawHTTPResponse.get(port: follower.port, path: "/manifest.json").body
                == RawHTTPResponse.get(port: primary.port, path: "/manifest.json").body)
        let index = try Self.index(follower)
        #expect(Set(index.keys) == ["default", "modern", "de"])
        #expect(
            index["modern"]?["manifest"] as? String == "http://127.0.0.1:\(follower.port)/sets/modern/manifest.json",
            "the follower names its own URLs")
        #expect(FileManager.default.fileExists(atPath: directory + "/public/sets/de/manifest.json"))
        // Each set's provenance is served beside its manifest, so the follower's /explain can name ABP lines for every set.
        let provenance = try RawHTTPResponse.get(port: primary.port, path: "/sets/de/provenance.txt")
        #expect(
            provenance.status == 200 && String(decoding: provenance.body, as: UTF8.self).contains(Self.regionalHost))
        #expect(try RawHTTPResponse.get(port: follower.port, path: "/sets/de/provenance.txt").body == provenance.body)
        #expect(
            try RawHTTPResponse.get(port: primary.port, path: "/sets/default/provenance.txt").body
                == RawHTTPResponse.get(port: primary.port, path: "/provenance.txt").body)
        #expect(try RawHTTPResponse.get(port: primary.port, path: "/sets/..%2F/provenance.txt").status == 404)
    }
}
