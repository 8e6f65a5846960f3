import Converter
import Foundation
import OriginTestSupport
import TestSupport
import Testing

/// The frame-aware fidelity check (frames_check.py under Xvfb) sees what a frame changes: ABP judges
/// `$domain` and `$third-party` against the frame that issues a request, WebKit's `if-domain` and
/// `load-type` against the top page. Three hand-picked requests, each issued both from its source as
/// the top page and from an iframe of its source inside another site's top page.
@Suite struct FramesCheckTests {
    // swift-format-ignore: AlwaysUseLowerCamelCase
    // Its fields are the keys of a Python tool's JSON report.
    struct Case: Decodable {
        var checked: Int
        var agree: Int
        var over_blocks: Int
        var under_blocks: Int
        var over_by_cause: [String: Int]
    }

    struct SetReport: Decodable {
        var frame: Case
        var top: Case
    }

    // swift-format-ignore: AlwaysUseLowerCamelCase
    // Its fields are the keys of a Python tool's JSON report.
    struct Report: Decodable {
        var sets: [String: SetReport]
        var unexpected_connects: Int
    }

    @Test func frameCasesShowTheDomainAndPartyDifferencesTopCasesAgree() throws {
        let xvfb = "/usr/bin/xvfb-run"
        try #require(FileManager.default.isExecutableFile(atPath: xvfb), "xvfb-run is missing: apt-get install -y xvfb")
        let filters = """
            [Adblock Plus 2.0]
            ||tracker.example^$script
            @@||tracker.example^$script,domain=site.example
            .example/ad/$image,third-party
            ||ads.example^
            """
        let requests = [
            // The site's exception: it applies in site.example's frame for ABP, never for WebKit there.
            #"{"url":"http://tracker.example/t.js","source":"http://site.example/","type":"script"}"#,
            // A frame's own first-party image: ABP allows it, WebKit's load-type sees the foreign top page.
            #"{"url":"http://www.news.example/ad/a.gif","source":"http://news.example/","type":"image"}"#,
            // Blocked wherever it is issued.
            #"{"url":"http://ads.example/b.js","source":"http://blog.example/","type":"script"}"#,
        ]
        let scratch = ScratchDirectory("frames-check")
        let abp = try scratch.write("filters.txt", Array(filters.utf8))
        let requestsFile = try scratch.write("requests.jsonl", Array((requests.joined(separator: "\n") + "\n").utf8))
        let set = try WebKitTestSupport.writeSet(
            try ListConverter().convert([FilterListSource(id: "test", bytes: Array(filters.utf8))]).lists)
        defer { try? FileManager.default.removeItem(at: set) }
        let reportFile = scratch.sub("report.json")

        let finished = try WebKitTestSupport.runScript(
            "frames_check.py",
            [
                "ours=\(set.path)", "--abp", abp, "--requests", requestsFile, "--sample", "0", "--json-out", reportFile,
            ], under: [xvfb, "-a"], timeout: 300)
        try #require(finished.status == 0, "frames_check.py: \(finished.stderr.suffix(3000))")
        let report = try JSONDecoder().decode(Report.self, from: try scratch.read("report.json"))
        let ours = try #require(report.sets["ours"])
        let output = String(decoding: finished.stdout, as: UTF8.self)

        #expect(ours.top.checked == 3 && ours.top.agree == 3, "\(output)")
        #expect(ours.frame.checked == 3, "\(output)")
        #expect(ours.frame.over_blocks == 2 && ours.frame.under_blocks == 0, "\(output)")
        #expect(ours.frame.over_by_cause == ["$domain": 1, "$third-party": 1], "\(output)")
        #expect(report.unexpected_connects == 0)
    }
}
