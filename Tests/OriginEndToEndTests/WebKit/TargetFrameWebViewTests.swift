import Converter
import Foundation
import OriginTestSupport
import PublicSuffix
import Testing

/// What the `safari-26` target's rules decide in a real WebKitGTK WebView (hiding_check.py under
/// Xvfb, every page and frame served by a loopback proxy): `$domain` judged in the frame that makes
/// the request, as ABP judges it, while the frames' own loads keep the top-page judgement.
@Suite struct TargetFrameWebViewTests {
    static let filters = """
        [Adblock Plus 2.0]
        ||ads.example/only.gif$image,domain=framed.example
        ||ads.example/except.gif$image,domain=~quiet.example
        ||ads.example/mixed.gif$image,domain=framed.example|~calm.framed.example
        ||ads.example/typeless.gif$domain=framed.example
        ||adframe.example^$subdocument,domain=top.example
        ||otherframe.example^$subdocument,domain=~top.example
        ||typeframe.example^$domain=~top.example
        top.example#?#.box:-abp-has(> .sponsored)
        """

    /// Runs hiding_check.py on `target`'s lists of `filters` with `pages`.
    static func run(
        _ target: ConversionTarget, filters: String = filters, pages: [[String: Any]],
        publicSuffixes: PublicSuffixList? = nil
    ) throws -> [String: [String: [String]?]] {
        let xvfb = "/usr/bin/xvfb-run"
        try #require(FileManager.default.isExecutableFile(atPath: xvfb), "xvfb-run is missing: apt-get install -y xvfb")
        var configuration = ConverterConfiguration()
        configuration.target = target
        configuration.publicSuffixes = publicSuffixes
        let output = try ListConverter(configuration: configuration).convert([
            FilterListSource(id: "test", bytes: Array(filters.utf8))
        ])
        let lists = try output.lists.map { try JSONSerialization.jsonObject(with: Data($0.json)) }
        let plan: [String: Any] = ["lists": lists, "pages": pages, "report_requests": true]
        let planFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "frame-plan-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: plan).write(to: planFile)
        defer { try? FileManager.default.removeItem(at: planFile) }
        let finished = try WebKitTestSupport.runScript(
            "hiding_check.py", [planFile.path], under: [xvfb, "-a"], timeout: 300)
        try #require(finished.status == 0, "hiding_check.py: \(finished.stderr)")
        let decoded = try #require(
            try JSONSerialization.jsonObject(with: finished.stdout) as? [String: [String: Any]],
            "\(String(decoding: finished.stdout, as: UTF8.self))")
        // A blocked frame reports nothing (null): nil here.
        return decoded.mapValues { $0.mapValues { $0 as? [String] } }
    }

    /// Each frame asks for every image, tagged with the frame's name so the proxy log tells them apart.
    static func images(_ tag: String) -> [String] {
        ["only", "except", "mixed", "typeless"].map { "http://ads.example/\($0).gif?in=\(tag)" }
    }

    @Test func safari26JudgesDomainsInTheRequestingFrame() throws {
        let pages: [[String: Any]] = [
            [
                "url": "http://top.example/p", "elements": ["keep"], "images": Self.images("top"),
                "markup":
                    #"<div class="box" id="box-ad"><span class="sponsored"></span></div><div class="box" id="box-plain"></div>"#,
                "frames": [
                    ["url": "http://framed.example/f", "elements": [String](), "images": Self.images("framed")],
                    ["url": "http://calm.framed.example/f", "elements": [String](), "images": Self.images("calm")],
                    ["url": "http://quiet.example/f", "elements": [String](), "images": Self.images("quiet")],
                    ["url": "http://adframe.example/f", "elements": [String]()],
                    ["url": "http://otherframe.example/f", "elements": [String]()],
                    ["url": "http://typeframe.example/f", "elements": [String]()],
                ],
            ],
            [
                "url": "http://elsewhere.example/p", "elements": ["keep"],
                "frames": [
                    ["url": "http://adframe.example/f", "elements": [String]()],
                    ["url": "http://otherframe.example/f", "elements": [String]()],
                ],
            ],
        ]
        let result = try Self.run(.safari26, pages: pages)
        let top = try #require(result["http://top.example/p"])
        #expect(
            top["requests"]
                == [
                    // The frame that asks decides: top.example names none of the rules' sites.
                    "http://ads.example/except.gif?in=quiet",
                    "http://ads.example/mixed.gif?in=calm",
                    "http://ads.example/mixed.gif?in=quiet",
                    "http://ads.example/mixed.gif?in=top",
                    "http://ads.example/only.gif?in=quiet",
                    "http://ads.example/only.gif?in=top",
                    "http://ads.example/typeless.gif?in=quiet",
                    "http://ads.example/typeless.gif?in=top",
                    // A frame's own load is judged against its parent, the top page.
                    "http://calm.framed.example/f", "http://framed.example/f", "http://otherframe.example/f",
                    "http://quiet.example/f",
                    // A typeless rule's document loads too.
                    "http://typeframe.example/f",
                ].sorted())
        #expect(top["http://top.example/p"] == ["box-ad"], "#?# with :-abp-has hides through native :has()")
        let elsewhere = try #require(result["http://elsewhere.example/p"])
        #expect(elsewhere["requests"] == ["http://adframe.example/f"])
    }

    /// A rule anchored to a host fixes the request's site, so `safari-26` judges its party in the frame
    /// that asks: a tracker's frame may load its own images, another site's frame may not; and a
    /// `~third-party` rule acts in its site's frame under a foreign top page.
    @Test func safari26JudgesAnchoredPartyInTheRequestingFrame() throws {
        let filters = """
            [Adblock Plus 2.0]
            ||tracker.example^$image,third-party
            ||tracker.example/typeless.gif$third-party
            ||own.example/mine.gif$image,~third-party
            """
        func images(_ tag: String) -> [String] {
            ["tracker.example/pixel.gif", "tracker.example/typeless.gif", "own.example/mine.gif"].map {
                "http://\($0)?in=\(tag)"
            }
        }
        let pages: [[String: Any]] = [
            [
                "url": "http://top.example/p", "elements": ["keep"], "images": images("top"),
                "frames": [
                    ["url": "http://tracker.example/f", "elements": [String](), "images": images("tracker")],
                    ["url": "http://own.example/f", "elements": [String](), "images": images("own")],
                    ["url": "http://other.example/f", "elements": [String](), "images": images("other")],
                ],
            ]
        ]
        let result = try Self.run(
            .safari26, filters: filters, pages: pages, publicSuffixes: try PublicSuffixFile.load())
        let top = try #require(result["http://top.example/p"])
        #expect(
            top["requests"]
                == [
                    "http://tracker.example/f", "http://own.example/f", "http://other.example/f",
                    // The tracker's own frame is first-party to it, whatever the top page; a typeless
                    // rule keeps the top-page test.
                    "http://tracker.example/pixel.gif?in=tracker",
                    // ~third-party: only in own.example's frame.
                    "http://own.example/mine.gif?in=top", "http://own.example/mine.gif?in=tracker",
                    "http://own.example/mine.gif?in=other",
                ].sorted())
    }

    /// A `$generichide` exception on a URL pattern (both targets: `if-top-url`) turns generic hiding
    /// off on the pages whose URL matches, and only there; the site's own selectors stay.
    @Test func pagePatternExceptionActsOnMatchingPagesOnly() throws {
        let filters = """
            [Adblock Plus 2.0]
            ##.ad-g
            top.example##.ad-s
            @@||top.example/search?$generichide
            """
        let all = ["ad-g", "ad-s", "keep"]
        let pages: [[String: Any]] = [
            ["url": "http://top.example/search?q=x", "elements": all, "frames": [[String: Any]]()],
            ["url": "http://top.example/news", "elements": all, "frames": [[String: Any]]()],
        ]
        let result = try Self.run(.safari17, filters: filters, pages: pages)
        #expect(result["http://top.example/search?q=x"]?["http://top.example/search?q=x"] == ["ad-s"])
        #expect(result["http://top.example/news"]?["http://top.example/news"] == ["ad-g", "ad-s"])
    }
}
