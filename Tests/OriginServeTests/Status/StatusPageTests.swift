import Converter
import Foundation
import HTTPServerCore
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginRefresh
@testable import OriginServe
@testable import OriginStore

/// The HTML status page: escaping, plot geometry, the empty state, and (over a real socket) the
/// negotiation that keeps JSON the default and the headers that lock the page down.
@Suite struct StatusPageTests {
    static let now = StatusActivityFixture.now

    static func activity(fileDates: [String: Date] = [:]) -> ServerActivity {
        StatusActivityFixture.activity(fileDates: fileDates)
    }

    @Test func escapesTheFiveHTMLSpecials() {
        #expect(StatusFormat.html(#"<a href="x">'&'</a>"#) == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        #expect(StatusFormat.html("plain ||ads.example^$third-party é") == "plain ||ads.example^$third-party é")
        #expect(StatusFormat.html("") == "")
    }

    @Test func everyOutsideTextIsEscapedOnThePage() {
        var status = OperatorStatus()
        let hostile = "<script>alert(1)</script>"
        status.lists = [.init(id: hostile, file: "x\"onmouseover=\"alert(2).json", rules: 1, bytes: 2, gzipBytes: 3)]
        status.upstreams = [
            .init(
                id: "e<b>", url: "javascript:\"><img src=x onerror=alert(3)>", source: "upstream",
                lastError: "<img src=x onerror=alert(4)>")
        ]
        status.lastRefresh = .init(at: Self.now, result: "failed", error: "</dd><script>alert(5)</script>")
        status.skippedRules = [.init(reason: "<iframe>", count: 2, example: "##div[title=\"<script>\"]")]
        let history = [
            RefreshRecord(
                at: Self.now, result: "failed\"><script>", summary: "<script>alert(6)</script>", listsChanged: [hostile]
            )
        ]
        let page = String(
            decoding: StatusPage(status: status, activity: Self.activity(), history: history).render(), as: UTF8.self)
        for raw in ["<script", "<img", "<iframe", "<b>", "\"onmouseover", "href=\"javascript"] {
            #expect(!page.contains(raw), "unescaped \(raw) on the page")
        }
        #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(page.contains("&lt;img src=x onerror=alert(4)&gt;"))
        #expect(page.contains("##div[title=&quot;&lt;script&gt;&quot;]"))
    }

    @Test func plotPointsLandWhereTheDataSays() {
        let plot = LinePlot(
            id: "p", title: "t", series: [.init(name: "s", points: [(0, 0), (1, 50), (2, 100)])],
            firstLabel: "a", lastLabel: "b", format: { String(Int($0)) })
        // Plot area: x 100…624, y 16 (the largest value)…206 (zero).
        #expect(plot.place(x: 0, y: 0) == PlotPoint(x: 100, y: 206))
        #expect(plot.place(x: 1, y: 50) == PlotPoint(x: 362, y: 111))
        #expect(plot.place(x: 2, y: 100) == PlotPoint(x: 624, y: 16))
        let svg = plot.svg()
        #expect(svg.contains(#"points="100.0,206.0 362.0,111.0 624.0,16.0""#), "\(svg)")
        #expect(svg.components(separatedBy: "<circle").count - 1 == 3)
        #expect(
            svg.contains(">100</text>") && svg.contains(">50</text>") && svg.contains(">0</text>"),
            "y labels 0, half, max")

        let single = LinePlot(
            id: "p", title: "t", series: [.init(name: "s", points: [(5, 0)])], firstLabel: "", lastLabel: "",
            format: { "\($0)" })
        #expect(single.place(x: 5, y: 0) == PlotPoint(x: 362, y: 206), "one point sits in the middle, on zero")
    }

    @Test func plotsAreBuiltFromTheHistory() throws {
        let day = 86400.0
        func record(_ at: Double, patched: Int, whole: Int, families: [String: Int]) -> RefreshRecord {
            var record = RefreshRecord(at: Date(timeIntervalSince1970: at), result: "published", summary: "")
            record.deviceCost = .init(bytesWithPatches: patched, bytesWhole: whole, listsToRecompile: 1)
            record.rulesByFamily = families
            return record
        }
        let history = [
            record(10 * day + 60, patched: 100, whole: 1000, families: ["network-hosts": 5]),
            record(10 * day + 7200, patched: 50, whole: 500, families: ["network-hosts": 6, "cosmetic-generic": 2]),
            record(12 * day, patched: 10, whole: 90, families: [:]),
        ]
        let bytes = try #require(StatusPlots.deviceDailyBytes(history))
        #expect(bytes.series.map { $0.points.map(\.y) } == [[150, 10], [1500, 90]], "one point per UTC day, summed")
        #expect(bytes.firstLabel == "1970-01-11" && bytes.lastLabel == "1970-01-13")
        let rules = try #require(StatusPlots.rulesPerFamily(history))
        #expect(rules.series.map(\.name) == ["cosmetic-generic", "network-hosts"])
        #expect(rules.series.map { $0.points.map(\.y) } == [[0, 2], [5, 6]], "publishes only")
    }

    @Test func anEmptyHistoryRendersWithoutPlots() {
        let page = String(
            decoding: StatusPage(status: OperatorStatus(), activity: Self.activity(), history: []).render(),
            as: UTF8.self)
        #expect(page.hasPrefix("<!doctype html>"))
        #expect(page.contains("No refresh recorded yet."))
        #expect(page.contains("No set published yet."))
        #expect(page.contains("No conversion report yet."))
        #expect(!page.contains("<svg"))
        #expect(page.contains(#"<form method="get" action="explain">"#))
        #expect(StatusPlots.rulesPerFamily([]) == nil && StatusPlots.deviceDailyBytes([]) == nil)
    }

    @Test func listsShowCompileSecondsOfTheServedVersionAndDaysUnchanged() {
        var status = OperatorStatus()
        status.lists = [
            .init(
                id: "network-hosts-00", file: "network-hosts-00.aaa.json", rules: 1234, bytes: 56_789, gzipBytes: 9_000)
        ]
        var older = RefreshRecord(at: Self.now, result: "published", summary: "")
        older.lists = [
            .init(
                id: "network-hosts-00", file: "network-hosts-00.aaa.json", rules: 1234, bytes: 1, gzipBytes: 1,
                compileSeconds: 2.345, changed: true)
        ]
        var newer = RefreshRecord(at: Self.now, result: "published", summary: "")
        newer.lists = [
            .init(
                id: "network-hosts-00", file: "network-hosts-00.aaa.json", rules: 1234, bytes: 1, gzipBytes: 1,
                compileSeconds: nil, changed: false)
        ]
        let activity = Self.activity(fileDates: ["network-hosts-00.aaa.json": Self.now.addingTimeInterval(-3.5 * 86400)]
        )
        let page = String(
            decoding: StatusPage(status: status, activity: activity, history: [older, newer]).render(), as: UTF8.self)
        #expect(
            page.contains(
                #"<td class="num">1,234</td><td class="num">56.8 kB</td><td class="num">9.0 kB</td><td class="num">2.35 s</td><td class="num">3 d</td>"#
            ),
            "\(page)")
    }

    /// The page's Compile column comes from the real WebKit gate: a list it accepts leaves its
    /// compile time, a list it rejects leaves none.
    @Test func theWebKitGateKeepsTheCompileSecondsOfTheListsItAccepts() throws {
        let gate = DeferredWebKitGate(helper: try WebKitTestSupport.helper(), required: true, log: LogLines().log)
        let good = RuleList(
            id: "network-hosts-00",
            json: Array(#"[{"trigger":{"url-filter":"ads\\.example"},"action":{"type":"block"}}]"#.utf8), ruleCount: 1)
        let bad = RuleList(
            id: "network-paths-00",
            json: Array(#"[{"trigger":{"url-filter":"(a|b)"},"action":{"type":"block"}}]"#.utf8), ruleCount: 1)
        let verdicts = gate.rejections(of: [good, bad])
        try #require(
            verdicts.count == 2 && verdicts[0] == nil && verdicts[1] != nil,
            "WebKit accepts the first list only: \(verdicts)")
        let times = try #require(gate.compileTimes).take()
        #expect(Array(times.keys) == ["network-hosts-00"])
        #expect((times["network-hosts-00"] ?? 0) > 0)
        #expect(gate.compileTimes?.take().isEmpty == true, "taken once")
    }

    // MARK: Over a real socket

    @Test func statusStaysJSONForMachinesAndServesThePageToBrowsers() throws {
        let board = StatusBoard()
        board.update {
            $0.lists = [.init(id: "network-00", file: "network-00.abc.json", rules: 7, bytes: 8, gzipBytes: 9)]
        }
        let harness = try ServerHarness(status: board)
        defer { harness.stop() }
        for headers in [
            [:], ["Accept": "*/*"], ["Accept": "application/json"], ["Accept": "application/json, text/html;q=0.9"],
        ] {
            let response = try harness.request("/status", headers: headers)
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json", "\(headers)")
            #expect(response.header("Content-Security-Policy") == nil)
            #expect((try? JSONSerialization.jsonObject(with: Data(response.body))) is [String: Any])
        }
        let browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
        for (target, headers) in [
            ("/status", ["Accept": browserAccept]), ("/status", ["Accept": "text/html"]), ("/status.html", [:]),
        ] {
            let response = try harness.request(target, headers: headers)
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "text/html; charset=utf-8", "\(target) \(headers)")
            #expect(response.header("Cache-Control") == "no-store")
            let policy = try #require(response.header("Content-Security-Policy"))
            #expect(
                policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'")
                    && policy.contains("form-action 'self'"))
            #expect(!policy.contains("script-src"), "no script is ever allowed")
            #expect(response.header("X-Content-Type-Options") == "nosniff")
            #expect(response.bodyText.hasPrefix("<!doctype html>"))
            #expect(response.bodyText.contains(#"data-list="network-00""#))
            #expect(Int(response.header("Content-Length") ?? "") == response.body.count)
        }
        let head = try harness.request("/status.html", method: "HEAD")
        #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Type") == "text/html; charset=utf-8")
        #expect(try harness.request("/status.html", method: "POST").status == 405)
        #expect(try harness.request("/status.htm").status == 404)
    }
}
