import Foundation
import ListOrigin
import OriginTestSupport
import Testing

/// The reference device's unprotected sites in a real WebKitGTK WebView under Xvfb
/// (scripts/webkit/unprotected_sites.py): the lists are swapped off the content controller before
/// a main-frame navigation to an unprotected site, so its page loads its ad; a page on another
/// site, before and after, still has the ad blocked. Nothing is recompiled for the swap.
@Suite struct UnprotectedSiteWebViewTests {
    struct Report: Decodable {
        struct Check: Decodable {
            var host: String
            var unprotected: Bool
            var adLoaded: Bool
            var adRequestSeen: Bool
        }
        var checks: [Check]
        var ok: Bool
        var swaps: Int
        var compiledLists: Int
    }

    @Test func anUnprotectedSiteLoadsItsAdAndOtherSitesStayBlocked() throws {
        let xvfb = "/usr/bin/xvfb-run"
        try #require(FileManager.default.isExecutableFile(atPath: xvfb), "xvfb-run is missing: apt-get install -y xvfb")
        let finished = try WebKitTestSupport.runScript(
            "unprotected_sites.py",
            [
                "--unprotected", "shop.example", "--unprotected", "forum.example", "--rounds", "1", "--json",
            ], under: [xvfb, "-a"], timeout: 300)
        let report = try JSONDecoder().decode(Report.self, from: finished.stdout)
        let byHost = report.checks.map { "\($0.host):\($0.adLoaded ? "ad" : "blocked")" }
        #expect(
            byHost == ["news.example:blocked", "www.shop.example:ad", "shop.example:ad", "news.example:blocked"],
            "blocking off on the unprotected site and its subdomain only, and back on after: \(String(decoding: finished.stdout, as: UTF8.self))"
        )
        #expect(
            report.checks.allSatisfy { $0.adRequestSeen == $0.adLoaded },
            "the proxy saw exactly the ads the pages loaded")
        #expect(report.ok && finished.status == 0, "\(finished.stderr)")
        #expect(report.swaps > 0 && report.compiledLists == 1, "swaps, one compile")
    }
}
