import Converter
import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import OriginConfig
@testable import OriginRefresh
@testable import OriginServe
@testable import OriginStore

/// The compile-time regression gate with real WebKitGTK: a list that grows from 20 to 600 long
/// regex-like filters compiles much slower than its previous version, so the publish is held with the lines
/// added named; the operator's acceptance (the box `POST /admin/accept-compile-time` fills,
/// `AcceptCompileTimeEndpointTests`) publishes it.
@Suite(.serialized) struct CompileRegressionTests {
    /// 300 plain host rules: a list WebKit compiles in milliseconds.
    static let hosts = (1...300).map { "||host\($0).example^" }.joined(separator: "\n")
    /// Regex-like filters with character classes and repetitions: each widens WebKit's automata.
    static func slow(_ count: Int) -> String {
        (1...count).map { "/ad\($0)[a-z]*banner[0-9]+track[a-z]*\($0)x/" }.joined(separator: "\n")
    }

    static func output(_ body: String) throws -> ConversionOutput {
        try ListConverter().convert([
            FilterListSource(id: "easylist", bytes: Array("[Adblock Plus 2.0]\n\(body)\n".utf8))
        ])
    }

    @Test(.timeLimit(.minutes(10)))
    func aListMadeSlowerToCompileIsHeldUntilAccepted() throws {
        let gate = DeferredWebKitGate(helper: try WebKitTestSupport.helper(), required: true, log: LogLines().log)
        let acceptance = CompileRegressionAcceptance()
        let scratch = ScratchDirectory("compile-regression")
        var publisher = Publisher(
            writer: SetWriter(directory: scratch.path), gracePeriod: 3600, gate: gate, log: LogLines().log)
        publisher.compileRegression = CompileRegressionGate(
            gate: gate, maxRatio: 1.25, rounds: 3, acceptance: acceptance)
        var history: [PersistentState.PublishRecord] = []
        let first = try publisher.publish(
            try Self.output(Self.hosts + "\n" + Self.slow(20)), over: nil, history: &history)
        #expect(first.compileComparison == nil, "nothing to compare on the first publish")
        let manifest = try #require(FileManager.default.contents(atPath: scratch.sub(PublishPlan.manifestName)))

        let slower = try Self.output(Self.hosts + "\n" + Self.slow(600))
        var held: CompileRegressionGate.Comparison?
        do {
            _ = try publisher.publish(slower, over: first.published, history: &history)
            Issue.record("a list made slower to compile was published")
        } catch PublishError.compileRegression(let comparison) {
            held = comparison
        }
        let comparison = try #require(held)
        // The regex filters have a list of their own, which grew from 20 to 600 of them; the host list is unchanged.
        let list = try #require(comparison.lists.first, "\(comparison)")
        #expect(comparison.lists.count == 1 && list.held && (list.ratio ?? 0) > 1.25, "\(comparison)")
        #expect(
            comparison.held && comparison.setRatio > 1.25 && comparison.newSeconds > comparison.previousSeconds,
            "\(comparison)")
        #expect(comparison.addedLineCount == 580)
        #expect(
            comparison.addedLines.first
                == SourceLine(upstream: "easylist", line: 322, text: "/ad21[a-z]*banner[0-9]+track[a-z]*21x/"))
        #expect(PublishError.compileRegression(comparison).description.contains("POST /admin/accept-compile-time"))
        #expect(
            FileManager.default.contents(atPath: scratch.sub(PublishPlan.manifestName)) == manifest,
            "the published set stays")

        // The page shows the figures and the lines added.
        var status = OperatorStatus()
        status.compileRegression = comparison
        let page = String(
            decoding: StatusPage(status: status, activity: StatusActivityFixture.activity(), history: []).render(),
            as: UTF8.self)
        #expect(page.contains("<p id=\"compile-verdict\" class=\"err\">Publish held"))
        #expect(
            page.contains("<tr data-compiled=\"\(list.id)\">")
                && page.contains("easylist:322 /ad21[a-z]*banner[0-9]+track[a-z]*21x/"))
        let metrics = String(
            decoding: MetricsRenderer(status: status, activity: StatusActivityFixture.activity()).render(),
            as: UTF8.self)
        #expect(metrics.contains("listserver_compile_regression_held 1"))

        // The operator accepts: the same new versions publish.
        #expect(acceptance.acceptHeld() == comparison.candidate)
        let accepted = try publisher.publish(slower, over: first.published, history: &history)
        #expect(accepted.manifestChanged)
        #expect(accepted.compileComparison?.accepted == true)
        #expect(acceptance.acceptHeld() == nil, "nothing is held any more")
    }
}
