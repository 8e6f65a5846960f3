import Foundation
import ListSync
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginConfig
@testable import OriginServe
@testable import OriginStore

/// Stable list URLs (`/lists/<id>.json`) and their index (`/lists/`) over real loopback sockets:
/// the current version's bytes and validators under a name that outlives it, short-cached; the
/// index as JSON and as HTML; retired ids; and the same bad targets a hashed file is checked with.
@Suite struct ListAliasTests {
    static let shortCache = "public, max-age=300, stale-while-revalidate=600, stale-if-error=86400"

    @Test func aliasServesTheCurrentVersionWithItsValidatorsButShortCaching() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let manifest = try Manifest.decode(Data(harness.content.manifest!.identity))
        for entry in manifest.lists {
            let file = try #require(harness.content.files[entry.file])
            let hashed = try harness.request("/\(entry.file)")
            let alias = try harness.request("/lists/\(entry.id).json")
            #expect(alias.status == 200)
            #expect(alias.body == file.identity)
            #expect(alias.header("ETag") == "\"\(entry.sha256.prefix(16))\"")
            #expect(
                alias.header("ETag") == hashed.header("ETag"), "the same bytes carry the same tag under either name")
            #expect(alias.header("Last-Modified") == "Mon, 19 Oct 2020 10:00:00 GMT")
            #expect(alias.header("Cache-Control") == Self.shortCache)
            #expect(alias.header("Content-Type") == "application/json")
            #expect(alias.header("Vary") == "Accept-Encoding, Available-Dictionary")
            #expect(alias.header("Use-As-Dictionary") == "match=\"/lists/\(entry.id).json\"")

            let gzip = try harness.request("/lists/\(entry.id).json", headers: ["Accept-Encoding": "gzip"])
            #expect(gzip.header("Content-Encoding") == "gzip")
            #expect(gzip.header("ETag") == "\"\(entry.sha256.prefix(16))-gz\"")
            #expect(try Gzip.decompress(gzip.body, limit: 1 << 24) == file.identity)

            let tag = try #require(alias.header("ETag"))
            let notModified = try harness.request("/lists/\(entry.id).json", headers: ["If-None-Match": tag])
            #expect(notModified.status == 304 && notModified.body.isEmpty)
            #expect(notModified.header("Cache-Control") == Self.shortCache)
            #expect(notModified.header("ETag") == tag)
            let since = try harness.request(
                "/lists/\(entry.id).json", headers: ["If-Modified-Since": "Mon, 19 Oct 2020 10:00:00 GMT"])
            #expect(since.status == 304)
            let range = try harness.request("/lists/\(entry.id).json", headers: ["Range": "bytes=0-9"])
            #expect(range.status == 206 && range.body == Array(file.identity[0..<10]))
            let head = try harness.request("/lists/\(entry.id).json", method: "HEAD")
            #expect(
                head.status == 200 && head.body.isEmpty && head.header("Content-Length") == String(file.identity.count))
        }
    }

    @Test func aliasFollowsANewGenerationAndItsTagChanges() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let before = try harness.request("/lists/network-00.json")
        let next = try ServerHarness.sampleContent(
            generation: "g2", at: ServerHarness.publishTime.addingTimeInterval(86_400))
        harness.server.install(next)
        let entry = try #require(Manifest.decode(Data(next.manifest!.identity)).lists.first { $0.id == "network-00" })
        let after = try harness.request(
            "/lists/network-00.json", headers: ["If-None-Match": try #require(before.header("ETag"))])
        #expect(after.status == 200, "yesterday's tag no longer matches")
        #expect(after.body == next.files[entry.file]!.identity)
        #expect(after.header("Last-Modified") == "Tue, 20 Oct 2020 10:00:00 GMT")
    }

    /// A client that kept yesterday's alias bytes as its dictionary gets the published patch.
    @Test func aliasNegotiatesDczFromThePublishedPatch() throws {
        let published = try DictionaryServingTests.published()
        let harness = try ServerHarness(content: published.content)
        defer { harness.stop() }
        let patched = try harness.request(
            "/lists/net.json", headers: ["Accept-Encoding": "gzip, dcz", "Available-Dictionary": published.offer])
        #expect(patched.status == 200)
        #expect(patched.header("Content-Encoding") == "dcz")
        #expect(patched.body == published.content.files[published.patch.file]!.identity)
        #expect(patched.header("Vary") == "Accept-Encoding, Available-Dictionary")
        let plain = try harness.request("/lists/net.json", headers: ["Accept-Encoding": "gzip"])
        #expect(plain.header("Content-Encoding") == "gzip")
        #expect(try Gzip.decompress(plain.body, limit: 1 << 24) == published.current.identity)
        #expect(
            try DictionaryServingTests.pathMatches(try #require(plain.header("Use-As-Dictionary")), "/lists/net.json"))
    }

    @Test func indexIsJSONByDefaultAndHTMLForABrowser() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let base = "http://127.0.0.1:\(harness.port)"
        for accept in [nil, "*/*", "application/json", "text/html;q=0.5, application/json"] {
            let response = try harness.request("/lists/", headers: accept.map { ["Accept": $0] } ?? [:])
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json", "\(accept ?? "no Accept")")
            #expect(response.header("Vary") == "Accept, Accept-Encoding")
            #expect(response.header("Cache-Control") == Self.shortCache)
        }
        let json = try harness.request("/lists/")
        let document = try #require(JSONSerialization.jsonObject(with: Data(json.body)) as? [String: Any])
        let lists = try #require(document["lists"] as? [[String: Any]])
        #expect(lists.map { $0["id"] as? String } == ["network-00", "network-01"])
        #expect(
            lists.map { $0["url"] as? String } == ["\(base)/lists/network-00.json", "\(base)/lists/network-01.json"])
        #expect(lists.first?["bytes"] as? Int == ServerHarness.sampleListA.count + 2)
        #expect(lists.first?["rules"] as? Int == 1)
        #expect(
            document["gnomeWeb"] as? String
                == "gsettings set org.gnome.Epiphany.web content-filters \"['\(base)/lists/network-00.json', '\(base)/lists/network-01.json']\""
        )
        #expect(
            (document["gnomeWeb43"] as? String)?.hasPrefix("gsettings set org.gnome.Epiphany content-filters \"['")
                == true)

        let page = try harness.request(
            "/lists/", headers: ["Accept": "text/html,application/xhtml+xml,*/*;q=0.8", "Accept-Encoding": "gzip"])
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.header("Vary") == "Accept, Accept-Encoding")
        #expect(page.header("Content-Security-Policy")?.hasPrefix("default-src 'none'") == true)
        #expect(page.header("X-Content-Type-Options") == "nosniff")
        let html = String(decoding: try Gzip.decompress(page.body, limit: 1 << 20), as: UTF8.self)
        #expect(
            html.contains(
                "gsettings set org.gnome.Epiphany.web content-filters &quot;[&#39;\(base)/lists/network-00.json&#39;, ")
        )
        #expect(html.contains("<a href=\"network-01.json\">"))
        #expect(!html.contains("<script"))
        #expect(page.header("ETag") != json.header("ETag"), "each representation has its own tag")
        let direct = try harness.request("/lists/index.html")
        #expect(direct.status == 200 && direct.header("Content-Type") == "text/html; charset=utf-8")
        // Before a set is installed the index is a cold-start answer, never a cacheable miss.
        harness.server.install(.empty)
        #expect(try harness.request("/lists/").status == 503)
    }

    @Test func publicBaseURLNamesTheCDNInTheIndex() throws {
        let harness = try ServerHarness { $0.publicBaseURL = "https://lists.example.net" }
        defer { harness.stop() }
        let json = try harness.request("/lists/").bodyText
        #expect(json.contains("'https://lists.example.net/lists/network-00.json'"))
        #expect(!json.contains("127.0.0.1"))
    }

    /// `serve` installs the set on disk before it binds: the index still names the bound port.
    @Test func indexNamesTheBoundPortWhenTheSetWasInstalledBeforeStart() throws {
        let server = HTTPServer(
            configuration: Configuration.HTTP(), listen: Configuration.Listen(address: "127.0.0.1", port: 0),
            status: StatusBoard(), log: Log(label: "alias-test", minimum: .error, sink: { _ in }), admin: nil)
        server.install(try ServerHarness.sampleContent())
        let port = try server.start()
        defer { server.shutdown(grace: 1) }
        let client = try RawHTTPClient(port: port, timeout: 5)
        defer { client.close() }
        try client.send("GET /lists/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let index = try client.readResponse().bodyText
        #expect(index.contains("'http://127.0.0.1:\(port)/lists/network-00.json'"), "\(index)")
    }

    @Test func publicBaseURLRefusesWhatWouldNeedQuoting() {
        for good in ["https://lists.example.net", "http://127.0.0.1:8080", "http://[::1]:8080"] {
            #expect(PublicBaseURL.isValid(good), "\(good)")
        }
        for bad in [
            "", "lists.example.net", "https://", "https://x/lists", "https://x/", "https://x'y", "https://x y",
            "ftp://x", "https://x\"]",
        ] {
            #expect(!PublicBaseURL.isValid(bad), "\(bad)")
        }
    }

    /// An id the current manifest dropped, while its last file is still kept: 410 with a pointer to
    /// the index (GNOME Web and DuckDuckGo-style fetchers keep their last good copy on an error).
    /// Once the file is gone, or for an id never published, the usual 404.
    @Test func retiredIDIsGoneWhileItsFileIsKeptThenNotFound() throws {
        let full = try ServerHarness.sampleContent()
        let harness = try ServerHarness(content: try full.dropping("network-00", keepFiles: true))
        defer { harness.stop() }
        let gone = try harness.request("/lists/network-00.json")
        #expect(gone.status == 410)
        #expect(gone.header("Link") == "</lists/>; rel=\"index\"")
        #expect(gone.bodyText.contains("/lists/"))
        #expect(try harness.request("/lists/network-01.json").status == 200)
        #expect(try harness.request("/lists/network-02.json").status == 404)
        harness.server.install(try full.dropping("network-00", keepFiles: false))
        #expect(try harness.request("/lists/network-00.json").status == 404)
    }

    /// The bad targets a hashed file is checked with (`HTTPServingTests.onlyExactNamesAreServed`),
    /// under `/lists/`: each the shared 404, never another file.
    @Test func onlyAliasNamesAreServedUnderLists() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let hashed = harness.fileNames[0]
        #expect(try harness.request("/lists/%6Eetwork-00%2ejson").status == 200)
        #expect(try harness.request("http://cdn.example/lists/network-00.json?x=1").status == 200)
        for target in [
            "/lists", "/lists/..", "/lists/../manifest.json", "/lists/%2e%2e/manifest.json",
            "/lists/%2e%2e%2fmanifest.json",
            "/lists/./network-00.json", "/lists//network-00.json", "/lists/network-00.json/", "/lists/.git/config",
            "/lists/%00network-00.json", "/lists/network-00.json%00", "/lists/network-00.json/..",
            "/lists/NETWORK-00.JSON",
            "/lists/network-00.json.gz", "/lists/network-00", "/lists/\(hashed)", "/lists/manifest.json",
            "/lists/index.json",
            "/lists/lists/network-00.json", "/lists/..%2fmanifest.json", "/lists/%2fetc%2fpasswd",
            "/lists/network-00.json;x",
            "/lists/../lists/", "/lists/%20network-00.json", "/lists/network-00.json..",
        ] {
            let response = try harness.request(target)
            #expect(response.status == 404, "\(target)")
            #expect(response.header("Cache-Control") == "public, max-age=60", "\(target)")
            #expect(response.header("Content-Type") == "application/json", "\(target)")
        }
        #expect(try harness.request("/lists/%zz").status == 400)
        let post = try harness.request("/lists/network-00.json", method: "POST")
        #expect(post.status == 405 && post.header("Allow") == "GET, HEAD")
    }

    @Test func statusPageLinksToTheIndex() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let page = try harness.request("/status.html").bodyText
        #expect(page.contains("<a href=\"lists/\">"))
    }

}
