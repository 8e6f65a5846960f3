import Converter
import Foundation
import OriginTestSupport
import TestSupport
import Testing
import WebKitCompiler

/// Regex filters with `{n,m}` and `|`, spelled out into several url-filters, compile in real WebKitGTK
/// (each form, and every such line of the bundled 2025-10 lists, on both targets) and block in a real
/// WebView what the regex matches.
@Suite struct RegexExpansionWebKitTests {
    // swift-format-ignore: AlwaysUseLowerCamelCase
    // Its fields are the keys of a Python tool's JSON Lines report.
    struct WebViewDecision: Decodable {
        var url: String
        var webkit_blocked: Bool
        var page_loaded: Bool
    }

    /// Repetition of an atom, a class and a group; alternation at the top, in a group, in a `?` group,
    /// with a branch anchor; an exception; each with the url-filters it becomes.
    static let forms = [
        #"/\/ad[0-9]{3}\.js/"#, #"/\/[a-f\d]{2,4}\/banner\//$image"#, #"/\/(?:ad){2,}x\.gif/"#,
        #"/^https?:\/\/(cdn|static)\.tracker\.example\//$script"#, #"/\/track(er|ing)?\/pixel/"#,
        #"/\.example\/ad\.(js|j$)/"#, #"/\/x(ab|cd){1,2}y\//"#,
        #"@@/^https?:\/\/(a|b)\.tracker\.example\/ok\//$script"#,
    ]

    /// The regex lines of the bundled lists that have a count or a `|` in their pattern.
    static func snapshotLines() throws -> [String] {
        var lines: [String] = []
        for name in ["easylist", "easyprivacy"] {
            let text = try String(
                contentsOf: Repository.root.appendingPathComponent("snapshot/\(name).txt"), encoding: .utf8)
            for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("/") || line.hasPrefix("@@/") {
                let pattern = line.range(of: "/$", options: .backwards).map { line[..<$0.lowerBound] } ?? line[...]
                if pattern.contains("{") || pattern.contains("|") { lines.append(String(line)) }
            }
        }
        return lines
    }

    @Test(arguments: ConversionTarget.allCases)
    func expandedRulesCompileInWebKit(target: ConversionTarget) throws {
        var configuration = ConverterConfiguration()
        configuration.target = target
        let formsOutput = try ListConverter(configuration: configuration).convert([
            FilterListSource(
                id: "forms", bytes: Array(("[Adblock Plus 2.0]\n" + Self.forms.joined(separator: "\n")).utf8))
        ])
        let report = try #require(formsOutput.report.sources.first)
        #expect(report.converted == Self.forms.count && report.skipped.isEmpty, "\(report.skipped)")
        // 1 + 1 + 1 + 2 + 2 + 2 + 4 + 2: one rule per url-filter (`(ab|cd){1,2}`: `ab` or `cd`, then `(ab)?` or
        // `(cd)?`), besides the layout's `.*` navigation guards.
        let filters = try formsOutput.lists.flatMap { list in
            try #require(JSONSerialization.jsonObject(with: Data(list.json)) as? [[String: [String: Any]]])
                .compactMap { $0["trigger"]?["url-filter"] as? String }.filter { $0 != ".*" }
        }
        #expect(filters.count == 15, "\(filters)")

        let snapshot = try Self.snapshotLines()
        let snapshotOutput = try ListConverter(configuration: configuration).convert([
            FilterListSource(
                id: "snapshot", bytes: Array(("[Adblock Plus 2.0]\n" + snapshot.joined(separator: "\n")).utf8))
        ])
        let snapshotReport = try #require(snapshotOutput.report.sources.first)
        #expect(snapshotReport.converted > snapshot.count / 2, "most such lines are within the cap")

        let inputs =
            formsOutput.lists.map { WebKitInput(id: "forms-" + $0.id, json: $0.json, rules: $0.ruleCount) }
            + snapshotOutput.lists.map { WebKitInput(id: "snapshot-" + $0.id, json: $0.json, rules: $0.ruleCount) }
        let verdicts = try WebKitTestSupport.compiler().compile(inputs)
        #expect(verdicts.count == inputs.count)
        for verdict in verdicts {
            #expect(verdict.ok, "\(target) \(verdict.id): \(verdict.error ?? "")")
        }
    }

    /// One line with a count and an alternation, installed in a WebKitGTK WebView under Xvfb: the page's
    /// images are blocked exactly when their URL matches the regex.
    @Test func anExpandedRuleBlocksInAWebView() throws {
        let xvfb = "/usr/bin/xvfb-run"
        try #require(FileManager.default.isExecutableFile(atPath: xvfb), "xvfb-run is missing: apt-get install -y xvfb")
        let filters = "[Adblock Plus 2.0]\n" + #"/\/track(er|ing)\d{1,2}\.gif/$image"# + "\n"
        let expected: [(url: String, blocked: Bool)] = [
            ("http://cdn.example/tracker7.gif", true), ("http://cdn.example/tracking42.gif", true),
            ("http://cdn.example/tracker.gif", false), ("http://cdn.example/tracked7.gif", false),
            ("http://cdn.example/trackingx.gif", false),
        ]
        let scratch = ScratchDirectory("regex-expansion-webview")
        let requests = expected.map { #"{"url":"\#($0.url)","source":"http://site.example/","type":"image"}"# }
        let requestsFile = try scratch.write("requests.jsonl", Array((requests.joined(separator: "\n") + "\n").utf8))
        let set = try WebKitTestSupport.writeSet(
            try ListConverter().convert([FilterListSource(id: "test", bytes: Array(filters.utf8))]).lists)
        defer { try? FileManager.default.removeItem(at: set) }
        let decisionsFile = scratch.sub("decisions.jsonl")
        let finished = try WebKitTestSupport.runScript(
            "webview_check.py",
            [
                set.path, "--requests", requestsFile, "--sample", "0", "--documents", "0", "--page-timeout", "6",
                "--decisions-out", decisionsFile,
            ], under: [xvfb, "-a"], timeout: 300)
        try #require(finished.status == 0, "webview_check.py: \(finished.stderr.suffix(3000))")
        let decisions = try String(contentsOfFile: decisionsFile, encoding: .utf8).split(separator: "\n").map {
            try JSONDecoder().decode(WebViewDecision.self, from: Data($0.utf8))
        }
        #expect(decisions.count == expected.count && decisions.allSatisfy(\.page_loaded))
        for (url, blocked) in expected {
            #expect(decisions.first { $0.url == url }?.webkit_blocked == blocked, "\(url)")
        }
    }
}
