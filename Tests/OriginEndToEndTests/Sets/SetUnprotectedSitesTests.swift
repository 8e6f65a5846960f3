import Foundation
import ListFormat
import OriginTestSupport
import TestSupport
import Testing

/// The unprotected sites reach every set: the config's and an admin edit's sites are carried in
/// each set's signed manifest, and a device that syncs any set gets them. A real `listserver serve`
/// with three sets, and `listserver sync` as the device.
@Suite(.serialized) struct SetUnprotectedSitesTests {
    static let sets = ["default", "modern", "de"]

    static func sites(_ server: ListServerProcess, _ set: String) throws -> [String] {
        let manifest = try RawHTTPResponse.get(port: server.port, path: "/sets/\(set)/manifest.json")
        return (try? Manifest.decode(Data(manifest.body)).unprotectedSites ?? []) ?? []
    }

    @Test func everySetsManifestCarriesTheSitesAndEveryDeviceGetsThem() async throws {
        let scratch = ScratchDirectory("sets-unprotected")
        let (server, upstream) = try await SetsTests.startPrimary(
            scratch, regional: .serve(body: SetsTests.regionalList, etag: "\"de\""),
            extra: #", "unprotectedSites": ["configured.example"]"#)
        defer {
            _ = server.terminate()
            upstream.stop()
        }
        let carried = try await eventually(timeout: 180) {
            try Self.sets.allSatisfy { try Self.sites(server, $0) == ["configured.example"] }
        }
        #expect(carried, "every set's manifest carries the configured site")

        let (status, _) = try await ListServerProcess.request(
            server.url("/admin/unprotected-sites?add=shop.example"), method: "POST",
            headers: ["Authorization": "Bearer t"])
        #expect(status == 200 || status == 202, "\(status)")
        let edited = try await eventually(timeout: 60) {
            try Self.sets.allSatisfy { try Self.sites(server, $0) == ["configured.example", "shop.example"] }
        }
        #expect(edited, "an admin edit publishes every set's manifest")

        let key = try FollowerSupport.publicKey(port: server.port)
        let binary = try ListServerBinary.path()
        for (target, set) in [("safari-26", "modern"), ("safari-17", "default")] {
            let run = try ChildRun.run(
                binary,
                [
                    "sync", "--sets", server.url("/sets/").absoluteString, "--target", target, "--dir",
                    scratch.sub("device-\(set)"), "--trusted-key", key, "--json",
                ])
            #expect(run.status == 0, "\(target): \(run.output)")
            let report = (try? JSONSerialization.jsonObject(with: run.stdout) as? [String: Any]) ?? [:]
            #expect((report["set"] as? [String: Any])?["name"] as? String == set)
            #expect(
                report["unprotectedSites"] as? [String] == ["configured.example", "shop.example"],
                "a device on the \(set) set: \(run.output)")
        }
    }
}
