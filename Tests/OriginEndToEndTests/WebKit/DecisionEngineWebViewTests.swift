import ContentBlockerEngine
import Converter
import Foundation
import OriginTestSupport
import PublicSuffix
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginServe

/// The Swift decision engine decides as real WebKit does, on the whole dev sample: against a real
/// WebKitGTK WebView (webview_check.py, under Xvfb) on every request a page can issue and load, and
/// against evaluate.py (itself checked against the WebView) on all 3,869 requests.
@Suite(.serialized) struct DecisionEngineWebViewTests {
    /// The converted 2025-10 snapshot, written once as a set directory, and the engine over it.
    static let converted: Result<(set: URL, engine: ContentBlockerEngine), any Error> = Result {
        let sources = [
            try WebKitTestSupport.source("snapshot/easylist.txt", id: "easylist"),
            try WebKitTestSupport.source("snapshot/easyprivacy.txt", id: "easyprivacy"),
        ]
        let lists = try ListConverter().convert(sources).lists
        let set = try WebKitTestSupport.writeSet(lists)
        let engine = try ContentBlockerEngine(
            lists: lists.map { ($0.id, $0.json) }, registrableDomains: try PublicSuffixFile.load())
        return (set, engine)
    }

    static let requestsFile = Repository.root.appendingPathComponent("Tests/Fixtures/requests/dev-sample.jsonl")

    struct SampleRequest: Decodable {
        var url: String
        var source: String?
        var type: String
    }

    struct EvaluatorAnswer: Decodable {
        var url: String
        var source: String
        var type: String
        var blocked: Bool
        var rule: String?
    }

    // swift-format-ignore: AlwaysUseLowerCamelCase
    // Its fields are the keys of a Python tool's JSON report.
    struct WebViewDecision: Decodable {
        var url: String
        var page: String
        var type: String
        var webkit_blocked: Bool
        var page_loaded: Bool
        var page_finished: Bool
    }

    // swift-format-ignore: AlwaysUseLowerCamelCase
    // Its fields are the keys of a Python tool's JSON report.
    struct Summary: Decodable {
        var sampled: Int
        var not_run: Int
        var checked: Int
        var pages_blocked_themselves: Int
        var unfinished: Int
        var pages: Int
        var compile_seconds: Double
        var load_seconds: Double
        var by_type: [String: Int]
        var unexpected_connects: Int
    }

    static func lines<T: Decodable>(_ data: Data, as type: T.Type) throws -> [T] {
        try data.split(separator: UInt8(ascii: "\n")).filter { !$0.isEmpty }.map {
            try JSONDecoder().decode(T.self, from: Data($0))
        }
    }

    func decide(_ engine: ContentBlockerEngine, url: String, page: String?, type: String) throws -> Bool {
        let abpType = try #require(ABPRequestType(rawValue: type), "unknown type \(type)")
        return engine.isBlocked(try BlockerRequest(url: url, source: page, type: abpType))
    }

    @Test func engineAgreesWithEvaluatorOnEveryDevSampleRequest() throws {
        let (set, engine) = try Self.converted.get()
        let finished = try WebKitTestSupport.runScript(
            "evaluate.py", [set.path, "--requests", Self.requestsFile.path], timeout: 600)
        #expect(finished.status == 0, "evaluate.py: \(finished.stderr)")
        let answers = try Self.lines(finished.stdout, as: EvaluatorAnswer.self)
        let requests = try Self.lines(try Data(contentsOf: Self.requestsFile), as: SampleRequest.self)
        #expect(answers.count == requests.count && requests.count == 3869)
        var differences: [String] = []
        for answer in answers {
            let ours = try decide(engine, url: answer.url, page: answer.source, type: answer.type)
            if ours != answer.blocked {
                differences.append(
                    "\(answer.type) \(answer.url) page=\(answer.source) evaluate.py=\(answer.blocked) engine=\(ours) \(answer.rule ?? "")"
                )
            }
        }
        let blocked = answers.filter(\.blocked).count
        print(
            "engine vs evaluate.py: \(answers.count - differences.count)/\(answers.count) agree; evaluate.py blocks \(blocked)"
        )
        #expect(
            differences.isEmpty, "\(differences.count) differences:\n\(differences.prefix(20).joined(separator: "\n"))")
        #expect(blocked > 1000 && blocked < answers.count - 1000, "both outcomes are common in the sample")
    }

    /// 12–15 minutes on this 2-core machine (941 pages through one WebView), which does not fit CI's
    /// budget beside the rest of the suite: `scripts/webview-full.sh` runs it; CI runs the evaluate.py
    /// comparison above, and WebKitEvaluatorTests ties evaluate.py to the WebView on a sample.
    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["LISTSERVER_FULL_WEBVIEW"] == "1",
            "set LISTSERVER_FULL_WEBVIEW=1 (scripts/webview-full.sh) for the full WebView pass"))
    func engineAgreesWithRealWebViewOnEveryLoadableDevSampleRequest() throws {
        let xvfb = "/usr/bin/xvfb-run"
        try #require(FileManager.default.isExecutableFile(atPath: xvfb), "xvfb-run is missing: apt-get install -y xvfb")
        let (set, engine) = try Self.converted.get()
        let decisionsFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "webview-decisions-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: decisionsFile) }
        let finished = try WebKitTestSupport.runScript(
            "webview_check.py",
            [
                set.path, "--sample", "0", "--json", "--time-limit", "1500", "--decisions-out", decisionsFile.path,
            ], under: [xvfb, "-a"], timeout: 1800)
        let summary: Summary
        do {
            summary = try JSONDecoder().decode(Summary.self, from: finished.stdout)
        } catch {
            Issue.record(
                "webview_check.py printed no summary (exit \(finished.status)): \(finished.stderr.suffix(3000))")
            return
        }
        let decisions = try Self.lines(try Data(contentsOf: decisionsFile), as: WebViewDecision.self)
        #expect(summary.not_run == 0, "every eligible request ran within the time limit")
        #expect(summary.unfinished == 0, "every page reported done (after one retry with twice the time)")
        #expect(decisions.count == summary.sampled)
        let loadable = decisions.filter { $0.page_loaded && $0.page_finished }
        var differences: [String] = []
        for decision in loadable {
            let page: String? = decision.type == "document" ? nil : decision.page
            let ours = try decide(engine, url: decision.url, page: page, type: decision.type)
            if ours != decision.webkit_blocked {
                differences.append(
                    "\(decision.type) \(decision.url) page=\(decision.page) webkit=\(decision.webkit_blocked) engine=\(ours)"
                )
            }
        }
        let webkitBlocked = loadable.filter(\.webkit_blocked).count
        print(
            "engine vs WebView: \(loadable.count - differences.count)/\(loadable.count) loadable requests agree (of \(summary.sampled) eligible; "
                + "\(summary.pages_blocked_themselves) on pages WebKit blocked themselves); WebKit blocked \(webkitBlocked); "
                + "by type \(summary.by_type); WebKit compiled the set in \(summary.compile_seconds) s and loaded \(summary.pages) pages in \(summary.load_seconds) s"
        )
        #expect(
            differences.isEmpty, "\(differences.count) differences:\n\(differences.prefix(20).joined(separator: "\n"))")
        #expect(
            loadable.count >= 3000,
            "most of the 3,869 requests are loadable (all but media, websocket, other and pages blocked themselves)")
        #expect(webkitBlocked > 1000 && webkitBlocked < loadable.count - 500, "both outcomes occur")
        #expect(summary.unexpected_connects == 0, "all traffic went through the loopback proxy as plain HTTP")
    }
}
