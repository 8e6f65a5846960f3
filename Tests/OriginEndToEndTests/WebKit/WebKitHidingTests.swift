import Converter
import Foundation
import ListOrigin
import OriginTestSupport
import Testing

/// What the converter's element-hiding output hides in a real WebKitGTK WebView (hiding_check.py under
/// Xvfb, pages and iframes served by a loopback proxy): ABP's meaning, where a site's selectors
/// follow the document's own domain (so its iframes too, on any page), generic selectors apply
/// everywhere, `#@#` and `$elemhide` / `$generichide` exceptions cancel exactly what they name, and
/// a subresource from a site never brings that site's hiding into another page.
@Suite struct WebKitHidingTests {
    @Test func convertedHidingRulesHideWhatABPHides() throws {
        let xvfb = "/usr/bin/xvfb-run"
        try #require(FileManager.default.isExecutableFile(atPath: xvfb), "xvfb-run is missing: apt-get install -y xvfb")
        let filters = """
            [Adblock Plus 2.0]
            ##.ad-g
            ##.ad-x
            quiet.example#@#.ad-x
            site.example,other.example##.ad-s
            framed.example##.ad-f
            @@||calm.example^$elemhide
            @@||plain.example^$generichide
            plain.example##.ad-p
            """
        let output = try ListConverter().convert([FilterListSource(id: "test", bytes: Array(filters.utf8))])
        let lists = try output.lists.map { try JSONSerialization.jsonObject(with: Data($0.json)) }
        let page = { (url: String, elements: [String], frames: [[String: Any]]) -> [String: Any] in
            ["url": url, "elements": elements, "frames": frames]
        }
        let all = ["ad-g", "ad-x", "ad-s", "ad-f", "ad-p", "keep"]
        let plan: [String: Any] = [
            "lists": lists,
            "pages": [
                page("http://www.site.example/p", all, [["url": "http://framed.example/f", "elements": all]]),
                page("http://quiet.example/p", all, []),
                page("http://calm.example/p", all, [["url": "http://site.example/f", "elements": all]]),
                page("http://plain.example/p", all, []),
                [
                    "url": "http://unrelated.example/p", "elements": all, "frames": [],
                    "images": ["http://site.example/x.gif"],
                ],
            ],
        ]
        let planFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hiding-plan-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: plan).write(to: planFile)
        defer { try? FileManager.default.removeItem(at: planFile) }

        let finished = try WebKitTestSupport.runScript(
            "hiding_check.py", [planFile.path], under: [xvfb, "-a"], timeout: 300)
        try #require(finished.status == 0, "hiding_check.py: \(finished.stderr)")
        let hidden = try #require(
            try JSONSerialization.jsonObject(with: finished.stdout) as? [String: [String: [String]]])
        #expect(
            hidden == [
                "http://www.site.example/p": [
                    "http://www.site.example/p": ["ad-g", "ad-s", "ad-x"],
                    // The framed site's own selectors apply in its frame; the page's do not.
                    "http://framed.example/f": ["ad-f", "ad-g", "ad-x"],
                ],
                "http://quiet.example/p": ["http://quiet.example/p": ["ad-g"]],
                // `$elemhide` turns hiding off on the page and in the frames it embeds.
                "http://calm.example/p": ["http://calm.example/p": [], "http://site.example/f": []],
                // `$generichide` keeps the site's own selectors.
                "http://plain.example/p": ["http://plain.example/p": ["ad-p"]],
                "http://unrelated.example/p": ["http://unrelated.example/p": ["ad-g", "ad-x"]],
            ], "\(String(decoding: finished.stdout, as: UTF8.self))")
    }

    /// A rule that mixes plain and `name.*` sites hides on its plain sites; on an entity site, which no
    /// WebKit condition can name, nothing of it applies, and a `name.*` exception is never undercut.
    @Test func mixedEntityRulesHideOnTheirPlainSitesOnly() throws {
        let xvfb = "/usr/bin/xvfb-run"
        try #require(FileManager.default.isExecutableFile(atPath: xvfb), "xvfb-run is missing: apt-get install -y xvfb")
        let filters = """
            [Adblock Plus 2.0]
            news.example,tripadvisor.*,radio.example##.ad-m
            amazon.*###ad-a
            ##.ad-e
            quiet.example,google.*#@#.ad-e
            ##.ad-g
            """
        let output = try ListConverter().convert([FilterListSource(id: "test", bytes: Array(filters.utf8))])
        let lists = try output.lists.map { try JSONSerialization.jsonObject(with: Data($0.json)) }
        let all = ["ad-m", "ad-a", "ad-e", "ad-g", "keep"]
        let urls = [
            "http://www.news.example/p", "http://radio.example/p", "http://tripadvisor.com/p",
            "http://www.tripadvisor.co.uk/p",
            "http://amazon.com/p", "http://amazon.evil.example/p", "http://google.com/p",
        ]
        let plan: [String: Any] = [
            "lists": lists, "pages": urls.map { ["url": $0, "elements": all, "frames": [[String: Any]]()] },
        ]
        let planFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hiding-plan-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: plan).write(to: planFile)
        defer { try? FileManager.default.removeItem(at: planFile) }

        let finished = try WebKitTestSupport.runScript(
            "hiding_check.py", [planFile.path], under: [xvfb, "-a"], timeout: 300)
        try #require(finished.status == 0, "hiding_check.py: \(finished.stderr)")
        let hidden = try #require(
            try JSONSerialization.jsonObject(with: finished.stdout) as? [String: [String: [String]]],
            "\(String(decoding: finished.stdout, as: UTF8.self)) \(finished.stderr)")
        var expected: [String: [String: [String]]] = [:]
        for url in urls { expected[url] = [url: ["ad-g"]] }
        expected["http://www.news.example/p"] = ["http://www.news.example/p": ["ad-g", "ad-m"]]
        expected["http://radio.example/p"] = ["http://radio.example/p": ["ad-g", "ad-m"]]
        #expect(hidden == expected, "\(String(decoding: finished.stdout, as: UTF8.self))")
    }

    /// A report longer than WebKit keeps of a page title (about 1,000 characters) comes back whole.
    @Test func manyHiddenElementsAreAllReported() throws {
        let xvfb = "/usr/bin/xvfb-run"
        try #require(FileManager.default.isExecutableFile(atPath: xvfb), "xvfb-run is missing: apt-get install -y xvfb")
        let ids = (0..<300).map { "hidden-\($0)" }
        let hideDivs: [String: Any] = [
            "trigger": ["url-filter": ".*"], "action": ["type": "css-display-none", "selector": "div"],
        ]
        let plan: [String: Any] = [
            "lists": [[hideDivs]], "pages": [["url": "http://many.example/p", "elements": ids, "frames": []]],
        ]
        let planFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hiding-plan-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: plan).write(to: planFile)
        defer { try? FileManager.default.removeItem(at: planFile) }

        let finished = try WebKitTestSupport.runScript(
            "hiding_check.py", [planFile.path], under: [xvfb, "-a"], timeout: 120)
        try #require(finished.status == 0, "hiding_check.py: \(finished.stderr.suffix(2000))")
        let hidden = try #require(
            try JSONSerialization.jsonObject(with: finished.stdout) as? [String: [String: [String]]])
        #expect(hidden == ["http://many.example/p": ["http://many.example/p": ids.sorted()]])
    }
}
