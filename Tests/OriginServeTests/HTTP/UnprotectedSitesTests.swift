import Converter
import Foundation
import ListFormat
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginConfig
@testable import OriginRefresh
@testable import OriginServe
@testable import OriginStore

/// Unprotected sites: hosts checked and normalised (config and admin endpoint alike), carried in
/// the manifest by a publish that writes no list file, kept across list publishes, and the admin
/// endpoint behind the token (404 without one).
@Suite struct UnprotectedSitesTests {
    @Test func hostsAreNormalisedAndEverythingElseIsRefusedByName() throws {
        #expect(try SiteHost.normalize("Bücher.Example") == "xn--bcher-kva.example")
        #expect(try SiteHost.normalize("News.EXAMPLE.co.uk") == "news.example.co.uk")
        for bad in [
            "https://a.example/", "a.example/page", "a.example:8443", "*.a.example", "localhost", "", "a..example",
            "a b.example", "ex ample",
        ] {
            #expect { try SiteHost.normalize(bad) } throws: { "\($0)".contains("\"\(bad)\" is not a host name") }
        }
    }

    @Test func configRefusesTheFirstBadEntryByIndexAndName() throws {
        let good = try ConfigurationLoader.decode(
            Data(#"{"unprotectedSites":["B.example","Bücher.example","b.example"]}"#.utf8), file: "c.json")
        #expect(good.unprotectedSites == ["b.example", "xn--bcher-kva.example"])
        #expect {
            _ = try ConfigurationLoader.decode(
                Data(#"{"unprotectedSites":["ok.example","https://shop.example/"]}"#.utf8), file: "c.json")
        } throws: { error in
            let error = error as? ConfigurationError
            return error?.key == "unprotectedSites[1]"
                && error?.problem.contains("\"https://shop.example/\" is not a host name") == true
        }
    }

    @Test func editsAddRemoveAndOverrideTheConfig() {
        var edits = UnprotectedSiteEdits()
        edits.apply(.add("b.example"))
        edits.apply(.remove("a.example"))
        #expect(edits.effective(configured: ["a.example", "c.example"]) == ["b.example", "c.example"])
        edits.apply(.add("a.example"))
        edits.apply(.remove("b.example"))
        #expect(edits.effective(configured: ["a.example", "c.example"]) == ["a.example", "c.example"])
    }

    static func manifest(_ harness: RefreshHarness) throws -> Manifest {
        try Manifest.decode(Data(contentsOf: URL(fileURLWithPath: harness.manifestPath)))
    }

    @Test func aSiteChangesOnlyTheManifestAndStaysThroughListPublishesAndRestarts() throws {
        var harness = try RefreshHarness { $0.unprotectedSites = ["configured.example"] }
        harness.server.set("/easylist.txt", .serve(body: try FixtureLists.easylist(lines: 400)))
        #expect(harness.run().result == .published)
        #expect(
            try Self.manifest(harness).unprotectedSites == ["configured.example"],
            "the config's sites reach the first manifest")
        let publicDirectory = harness.pipeline.publisher.writer.directory
        let listsBefore = try PublishedSetForTests.listFiles(publicDirectory)
        let manifestBefore = try Self.manifest(harness)

        let added = harness.pipeline.publishUnprotectedSites(
            state: &harness.state, published: &harness.published, change: .add("broken-shop.example"))
        #expect(added != nil, "a change publishes a manifest")
        let manifest = try Self.manifest(harness)
        #expect(manifest.unprotectedSites == ["broken-shop.example", "configured.example"])
        #expect(manifest.lists == manifestBefore.lists, "the same lists")
        #expect(try PublishedSetForTests.listFiles(publicDirectory) == listsBefore, "no list file written or removed")
        #expect(
            harness.published?.content.manifest?.identity
                == Array(try Data(contentsOf: URL(fileURLWithPath: harness.manifestPath))),
            "the served manifest is the one on disk")
        #expect(
            harness.pipeline.publishUnprotectedSites(state: &harness.state, published: &harness.published) == nil,
            "no change, no publish")

        // A list publish keeps the sites; so does a new pipeline over the same state directory (a restart).
        harness.server.set("/easylist.txt", .serve(body: try FixtureLists.easylist(lines: 420)))
        let manifestsBefore = harness.state.history.count
        #expect(harness.run().result == .published)
        #expect(
            harness.state.history.count == manifestsBefore + 1,
            "one manifest, already carrying the sites: no window without them")
        #expect(try Self.manifest(harness).unprotectedSites == ["broken-shop.example", "configured.example"])
        let edits = try harness.pipeline.store.loadUnprotectedSiteEdits()
        #expect(edits.added == ["broken-shop.example"], "kept in stateDir")

        // Removing a configured site switches blocking back on; removing the last drops the field.
        _ = harness.pipeline.publishUnprotectedSites(
            state: &harness.state, published: &harness.published, change: .remove("configured.example"))
        _ = harness.pipeline.publishUnprotectedSites(
            state: &harness.state, published: &harness.published, change: .remove("broken-shop.example"))
        #expect(try Self.manifest(harness).unprotectedSites == nil)
        #expect(!(try String(contentsOfFile: harness.manifestPath, encoding: .utf8)).contains("unprotectedSites"))
    }

    @Test func theAdminEndpointNeedsATokenAndAHost() throws {
        let changes = LockedLines()
        let admin = AdminCredential(token: "s3cret-token")
        // Without a publisher (a follower), the endpoint does not exist even with a token.
        let follower = try ServerHarness(admin: admin)
        #expect(
            try follower.request(
                "/admin/unprotected-sites?add=a.example", method: "POST",
                headers: ["Authorization": "Bearer s3cret-token"]
            ).status == 404)
        follower.stop()
        let none = try ServerHarness(admin: nil)
        #expect(
            try none.request("/admin/unprotected-sites?add=a.example", method: "POST").status == 404,
            "no token configured: 404")
        none.stop()

        let harness = try ServerHarness(admin: admin, onUnprotectedSite: { changes.append("\($0)") })
        defer { harness.stop() }
        let token = ["Authorization": "Bearer s3cret-token", "Content-Length": "0"]
        #expect(
            try harness.request(
                "/admin/unprotected-sites?add=a.example", method: "POST", headers: ["Content-Length": "0"]
            ).status == 401)
        #expect(
            try harness.request(
                "/admin/unprotected-sites?add=a.example", headers: ["Authorization": "Bearer s3cret-token"]
            ).status == 405)
        let bad = try harness.request(
            "/admin/unprotected-sites?add=https%3A%2F%2Fshop.example%2Fcart", method: "POST", headers: token)
        #expect(bad.status == 400)
        #expect(
            String(decoding: bad.body, as: UTF8.self).contains(#"\"https://shop.example/cart\" is not a host name"#),
            "the refusal names the entry (JSON-escaped)")
        #expect(
            try harness.request(
                "/admin/unprotected-sites?add=a.example&remove=b.example", method: "POST", headers: token
            ).status == 400)
        #expect(try harness.request("/admin/unprotected-sites", method: "POST", headers: token).status == 400)
        #expect(changes.all.isEmpty, "nothing refused reaches the publisher")
        let added = try harness.request(
            "/admin/unprotected-sites?add=B%C3%BCcher.Example", method: "POST", headers: token)
        #expect(added.status == 202)
        #expect(String(decoding: added.body, as: UTF8.self).contains("\"add\":\"xn--bcher-kva.example\""))
        #expect(
            try harness.request("/admin/unprotected-sites?remove=a.example", method: "POST", headers: token).status
                == 202)
        #expect(changes.all == ["add(\"xn--bcher-kva.example\")", "remove(\"a.example\")"])
    }
}
