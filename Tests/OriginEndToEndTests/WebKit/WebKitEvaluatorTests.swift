import Converter
import Foundation
import ListOrigin
import OriginTestSupport
import Testing

/// scripts/webkit/evaluate.py (the WebKit-semantics evaluator behind semantic.py) decides exactly as a
/// real WebKitGTK WebView does: webview_check.py loads pages under Xvfb that issue sampled dev-sample
/// requests through a loopback logging proxy, with the converted 2025-10 snapshot installed.
@Suite struct WebKitEvaluatorTests {
    // swift-format-ignore: AlwaysUseLowerCamelCase
    // Its fields are the keys of a Python tool's JSON report.
    struct Summary: Decodable {
        var checked: Int
        var agree: Int
        var allowed_by_exception: Int
        var blocked_by_domain_rule: Int
        var blocked_by_party_rule: Int
        var webkit_blocked: Int
        var unexpected_connects: Int
    }

    @Test func evaluatorAgreesWithRealWebViewOnSampledRequests() throws {
        let xvfb = "/usr/bin/xvfb-run"
        try #require(FileManager.default.isExecutableFile(atPath: xvfb), "xvfb-run is missing: apt-get install -y xvfb")
        let directory = try WebKitTestSupport.writeConvertedSnapshot()
        defer { try? FileManager.default.removeItem(at: directory) }

        // 80 requests, half chosen because an exception or a domain/party condition decides them.
        let finished = try WebKitTestSupport.runScript(
            "webview_check.py",
            [
                directory.path, "--sample", "80", "--documents", "6", "--seed", "3", "--page-timeout", "6", "--json",
            ], under: [xvfb, "-a"], timeout: 900)
        let summary = try JSONDecoder().decode(Summary.self, from: finished.stdout)
        let report = String(decoding: finished.stdout, as: UTF8.self)
        #expect(
            summary.checked >= 70,
            "most sampled requests were checked (pages that WebKit blocked themselves are left out)")
        #expect(summary.agree == summary.checked, "evaluate.py and WebKit differ: \(report.prefix(3000))")
        #expect(finished.status == 0, "webview_check.py: \(finished.stderr)")
        #expect(
            summary.webkit_blocked > 0 && summary.webkit_blocked < summary.checked, "both outcomes occur in the sample")
        #expect(
            summary.allowed_by_exception + summary.blocked_by_domain_rule + summary.blocked_by_party_rule > 0,
            "the sample exercises exceptions and domain or party conditions")
        #expect(summary.unexpected_connects == 0, "all traffic went through the loopback proxy as plain HTTP")
    }
}
