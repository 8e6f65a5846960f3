import Converter
import Foundation
import OriginTestSupport
import PublicSuffix
import Testing

/// Entity-domain hiding (`amazon.*##sel`) of the `safari-26` target in a real WebKitGTK WebView
/// (hiding_check.py under Xvfb, pages and frames served by a loopback proxy), with Debian's Public
/// Suffix List: the selector acts in the entity's own documents, as top pages and in frames of any
/// site, and nowhere else: not on `amazon.evil.example`, nor below a wildcard suffix (`*.ck`), where
/// the carve-outs after the one-label rules cancel them.
@Suite struct EntityHidingWebViewTests {
    @Test func entityHidingActsInTheEntitysDocumentsOnly() throws {
        let filters = """
            [Adblock Plus 2.0]
            amazon.*##.ad-a
            b.example,www.google.*##.ad-g
            """
        var configuration = ConverterConfiguration()
        configuration.target = .safari26
        configuration.publicSuffixes = try PublicSuffixFile.load()
        let output = try ListConverter(configuration: configuration).convert([
            FilterListSource(id: "test", bytes: Array(filters.utf8))
        ])
        let lists = try output.lists.map { try JSONSerialization.jsonObject(with: Data($0.json)) }
        let all = ["ad-a", "ad-g", "keep"]
        func frame(_ url: String) -> [String: Any] { ["url": url, "elements": all] }
        func page(_ url: String, _ frames: [String]) -> [String: Any] {
            ["url": url, "elements": all, "frames": frames.map(frame)]
        }
        let outsiders = ["http://amazon.evil.example/f", "http://www.amazon.ck/f", "http://www.google.ck/f"]
        let plan: [String: Any] = [
            "lists": lists,
            "pages": [
                page("http://www.amazon.co.uk/p", ["http://amazon.de/f", "http://www.google.pl/f"] + outsiders),
                page(
                    "http://other.example/p",
                    ["http://www.amazon.co.uk/f", "http://b.example/f", "http://amazon.ck/f"] + outsiders),
                page("http://www.amazon.ck/p", ["http://www.amazon.com.au/f"]),
                page("http://amazon.evil.example/p", ["http://www.google.co.jp/f"]),
            ],
        ]
        let hidden = try WebKitTestSupport.hidingCheck(plan)
        let none = [String]()
        #expect(
            hidden == [
                "http://www.amazon.co.uk/p": [
                    "http://www.amazon.co.uk/p": ["ad-a"], "http://amazon.de/f": ["ad-a"],
                    "http://www.google.pl/f": ["ad-g"],
                    "http://amazon.evil.example/f": none, "http://www.amazon.ck/f": none,
                    "http://www.google.ck/f": none,
                ],
                // adblock-rust hides on amazon.ck itself, a public suffix under `*.ck`.
                "http://other.example/p": [
                    "http://other.example/p": none, "http://www.amazon.co.uk/f": ["ad-a"],
                    "http://b.example/f": ["ad-g"], "http://amazon.ck/f": ["ad-a"],
                    "http://amazon.evil.example/f": none, "http://www.amazon.ck/f": none,
                    "http://www.google.ck/f": none,
                ],
                // `*.ck` makes amazon.ck a public suffix: www.amazon.ck is not an amazon.* site.
                "http://www.amazon.ck/p": ["http://www.amazon.ck/p": none, "http://www.amazon.com.au/f": ["ad-a"]],
                "http://amazon.evil.example/p": [
                    "http://amazon.evil.example/p": none, "http://www.google.co.jp/f": ["ad-g"],
                ],
            ])
    }
}
