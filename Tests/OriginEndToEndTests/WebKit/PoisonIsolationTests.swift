import Converter
import Foundation
import ListSync
import OriginTestSupport
import TestSupport
import Testing

@testable import OriginConfig
@testable import OriginRefresh
@testable import OriginServe
@testable import OriginStore

/// The WebKit gate and the isolating publisher both suites below drive, and the poisoning hook.
enum PoisonFixture {
    /// Makes the rule of the line naming `token` one WebKit refuses: `token` becomes `(token|venom)`.
    static func poisoning(_ token: String) -> @Sendable (inout ConversionOutput) -> Void {
        { output in
            for index in output.lists.indices {
                let text = String(decoding: output.lists[index].json, as: UTF8.self)
                output.lists[index].json = Array(text.replacingOccurrences(of: token, with: "(\(token)|venom)").utf8)
            }
        }
    }

    static func gate() throws -> DeferredWebKitGate {
        DeferredWebKitGate(helper: try WebKitTestSupport.helper(), required: true, log: LogLines().log)
    }

    static func publishing(
        _ directory: String, gate: any PublishGate, bounds: PoisonIsolation.Bounds = .init(compiles: 200, seconds: 600)
    ) -> IsolatingPublish {
        IsolatingPublish(
            converter: ListConverter(),
            publisher: Publisher(
                writer: SetWriter(directory: directory), gracePeriod: 3600, gate: gate, log: LogLines().log),
            bounds: bounds, log: LogLines().log, reviseOutput: poisoning("poison"))
    }

    /// The bundled 2025-10 snapshot as converter input, and day two: the same with `line` added.
    static func snapshotDays(adding line: String) throws -> (one: [FilterListSource], two: [FilterListSource]) {
        let sources = try ["easylist", "easyprivacy"].map { id in
            FilterListSource(
                id: id, bytes: Array(try Data(contentsOf: Repository.root.appendingPathComponent("snapshot/\(id).txt")))
            )
        }
        var dayTwo = sources
        dayTwo[0].bytes += Array("\n\(line)\n".utf8)
        return (sources, dayTwo)
    }
}

/// A line WebKit rejects is isolated by bisection in real WebKit, dropped under its own skip
/// reason, and the rest of the set is published; when isolation cannot finish within its bounds
/// nothing is published. The converter's own checks stop every line WebKit would reject, so these
/// tests use the test-only hook `IsolatingPublish.reviseOutput`: after each conversion it rewrites
/// the rule of `||poison.example^` into a real rule WebKit rejects (an alternation in its url-filter).
@Suite(.serialized) struct PoisonIsolationTests {
    static let poisonLine = "||poison.example^"

    /// Day one's list; the poisoned line is line 4.
    static func easylist(extra: String = "") -> FilterListSource {
        FilterListSource(
            id: "easylist",
            bytes: Array(
                "[Adblock Plus 2.0]\n! Title: test\n||ads.example^\n\(poisonLine)\n||tracker.example^\nexample.com##.banner\n\(extra)"
                    .utf8))
    }

    static let easyprivacy = FilterListSource(
        id: "easyprivacy", bytes: Array("[Adblock Plus 2.0]\n||beacon.example^\n||pixel.example^\n".utf8))

    static func publishedText(_ set: PublishedSet) -> String {
        set.manifest.lists.map { String(decoding: set.content.files[$0.file]?.identity ?? [], as: UTF8.self) }.joined(
            separator: "\n")
    }

    @Test(.timeLimit(.minutes(5)))
    func aRejectedLineIsDroppedAndTheRestIsPublishedAndShown() throws {
        let scratch = ScratchDirectory("poison")
        let gate = try PoisonFixture.gate()
        var history: [PersistentState.PublishRecord] = []
        // Day one without the hook: everything compiles.
        var clean = PoisonFixture.publishing(scratch.path, gate: gate)
        clean.reviseOutput = nil
        let first = try clean.run(
            [Self.easylist(), Self.easyprivacy], previous: nil, history: &history, now: Date(), deadline: { _ in nil })
        #expect(first.isolated.isEmpty)
        #expect(Self.publishedText(first.outcome.published).contains("poison"))

        // Day two: a new line upstream, and the poisoned line's rule is one WebKit rejects.
        let second = try PoisonFixture.publishing(scratch.path, gate: gate)
            .run(
                [Self.easylist(extra: "||fresh-ads.example^\n"), Self.easyprivacy], previous: first.outcome.published,
                history: &history,
                now: Date(), deadline: { _ in nil })
        let isolated = try #require(second.isolated.first)
        #expect(second.isolated.count == 1)
        #expect(isolated.upstream == "easylist" && isolated.line == 4 && isolated.text == Self.poisonLine)
        #expect(isolated.error.hasPrefix("Invalid or unsupported regular expression."), "\(isolated.error)")
        let served = Self.publishedText(second.outcome.published)
        #expect(!served.contains("poison"), "the line's rule is not published")
        #expect(served.contains("fresh-ads"), "the rest of the set moved on")
        #expect(second.outcome.manifestChanged)
        let skipped = second.output.report.sources.first { $0.id == "easylist" }?.skipped["webkit-rejected"]
        #expect(skipped == ConversionReport.SkipTally(count: 1, examples: [Self.poisonLine]))
        try Self.expectShown(isolated, publish: second)
    }

    /// /status JSON, the status page and /metrics all name the line with WebKit's error.
    static func expectShown(_ line: IsolatedLine, publish: IsolatingPublish.Published) throws {
        let board = StatusBoard()
        var outcome = RefreshOutcome(mode: .online, startedAt: Date())
        outcome.set = .published(publish.outcome, publish.output.report)
        outcome.isolatedLines = publish.isolated
        RefreshReporting(status: board, log: LogLines().log).report(outcome)
        let activity = StatusActivityFixture.activity()
        let json = try #require(
            try JSONSerialization.jsonObject(
                with: Data(StatusDocument(status: board.current, activity: activity).encoded())) as? [String: Any])
        let lines = try #require(json["isolatedLines"] as? [[String: Any]])
        #expect(lines.first?["text"] as? String == line.text && lines.first?["line"] as? Int == line.line)
        #expect((lines.first?["error"] as? String)?.hasPrefix("Invalid or unsupported regular expression.") == true)
        let page = String(
            decoding: StatusPage(status: board.current, activity: activity, history: []).render(), as: UTF8.self)
        #expect(page.contains("<table id=\"isolated-table\">") && page.contains("<code>\(line.text)</code>"))
        #expect(page.contains("Invalid or unsupported regular expression."))
        #expect(page.contains("<td>webkit-rejected</td>"), "counted under its own skip reason")
        let metrics = String(
            decoding: MetricsRenderer(status: board.current, activity: activity).render(), as: UTF8.self)
        #expect(metrics.contains("listserver_isolated_lines 1"))
        #expect(
            metrics.contains(
                "listserver_isolated_line{upstream=\"easylist\",line=\"4\",list=\"\(line.list)\",error=\"Invalid or unsupported regular expression."
            ))
    }

    @Test(.timeLimit(.minutes(5)))
    func isolationPastItsBoundPublishesNothing() throws {
        let scratch = ScratchDirectory("poison-bound")
        let gate = try PoisonFixture.gate()
        var history: [PersistentState.PublishRecord] = []
        var clean = PoisonFixture.publishing(scratch.path, gate: gate)
        clean.reviseOutput = nil
        let first = try clean.run(
            [Self.easylist(), Self.easyprivacy], previous: nil, history: &history, now: Date(), deadline: { _ in nil })
        let manifest = try #require(FileManager.default.contents(atPath: scratch.sub(PublishPlan.manifestName)))
        // One compile is not enough to halve a list down to one rule.
        let bounded = PoisonFixture.publishing(scratch.path, gate: gate, bounds: .init(compiles: 1, seconds: 600))
        do {
            _ = try bounded.run(
                [Self.easylist(extra: "||fresh-ads.example^\n"), Self.easyprivacy], previous: first.outcome.published,
                history: &history, now: Date(), deadline: { _ in nil })
            Issue.record("a set was published although isolation ran out of compiles")
        } catch {
            guard case .isolation(let reason) = error else {
                Issue.record("expected an isolation failure, got \(error)")
                return
            }
            #expect(reason.contains("publish.isolationMaxCompiles 1"), "\(reason)")
            #expect(
                reason.contains("Invalid or unsupported regular expression."), "WebKit's error is reported: \(reason)")
        }
        #expect(
            FileManager.default.contents(atPath: scratch.sub(PublishPlan.manifestName)) == manifest,
            "the previous set stays, whole")
    }
}

/// The figure for docs/refresh-and-publish.md, opt-in (it compiles the whole 2025-10 set four
/// times): `LISTSERVER_ISOLATION_TIMING=1 swift test --skip-build --filter PoisonIsolationTiming`.
/// Day one publishes snapshot/; day two adds one line whose rule the hook poisons, and is published
/// twice from day one: with the poison (isolation) and without it (a plain publish), same run.
@Suite(.serialized) struct PoisonIsolationTiming {
    static let enabled = ProcessInfo.processInfo.environment["LISTSERVER_ISOLATION_TIMING"] != nil

    @Test(
        .enabled(if: enabled, "set LISTSERVER_ISOLATION_TIMING=1 to time isolation on the 2025-10 set"),
        .timeLimit(.minutes(30)))
    func isolationTimeOnThe202510Set() throws {
        let (sources, dayTwo) = try PoisonFixture.snapshotDays(adding: "||poison-timing.example^")
        let gate = try PoisonFixture.gate()
        var seconds: [String: Double] = [:]
        for poisoned in [false, true] {
            let scratch = ScratchDirectory("poison-timing")
            var history: [PersistentState.PublishRecord] = []
            var publishing = PoisonFixture.publishing(scratch.path, gate: gate)
            publishing.reviseOutput = nil
            let first = try publishing.run(
                sources, previous: nil, history: &history, now: Date(), deadline: { _ in nil })
            publishing.reviseOutput = poisoned ? PoisonFixture.poisoning("poison-timing") : nil
            let started = Date()
            let second = try publishing.run(
                dayTwo, previous: first.outcome.published, history: &history, now: Date(), deadline: { _ in nil })
            seconds[poisoned ? "poisoned" : "clean"] = Date().timeIntervalSince(started)
            #expect(second.isolated.map(\.text) == (poisoned ? ["||poison-timing.example^"] : []))
            if poisoned {
                print(
                    "isolation: \(second.isolationCompiles) compiles, \(String(format: "%.1f", second.isolationSeconds)) s from the rejection to the publish"
                )
            }
        }
        let clean = seconds["clean"] ?? 0
        let poisoned = seconds["poisoned"] ?? 0
        print(
            String(
                format: "day-two publish of the 2025-10 set: clean %.1f s, with one poisoned line %.1f s (%.2fx)",
                clean, poisoned, poisoned / clean))
    }

    /// What the compile-time regression gate adds to a day-two publish of the 2025-10 set (one new
    /// line), against the same publish without it, same run:
    /// `LISTSERVER_ISOLATION_TIMING=1 swift test --skip-build --filter PoisonIsolationTiming/compileGate`.
    @Test(
        .enabled(if: enabled, "set LISTSERVER_ISOLATION_TIMING=1 to time the compile-time gate on the 2025-10 set"),
        .timeLimit(.minutes(30)))
    func compileGateCostOnThe202510Set() throws {
        let (sources, dayTwo) = try PoisonFixture.snapshotDays(adding: "||day-two.example^")
        let gate = try PoisonFixture.gate()
        var seconds: [Bool: Double] = [:]
        for compared in [false, true] {
            let scratch = ScratchDirectory("compile-gate-timing")
            var history: [PersistentState.PublishRecord] = []
            var publisher = Publisher(
                writer: SetWriter(directory: scratch.path), gracePeriod: 3600, gate: gate, log: LogLines().log)
            let converter = ListConverter()
            let first = try publisher.publish(try converter.convert(sources), over: nil, history: &history)
            if compared {
                publisher.compileRegression = CompileRegressionGate(
                    gate: gate, maxRatio: 1.25, rounds: 3, acceptance: CompileRegressionAcceptance())
            }
            let output = try converter.convert(
                dayTwo, previousLayout: first.published.layoutState, previousLists: first.published.listBytesByID)
            let started = Date()
            let second = try publisher.publish(output, over: first.published, history: &history)
            seconds[compared] = Date().timeIntervalSince(started)
            if let comparison = second.compileComparison {
                print(
                    "compared: \(comparison.lists.map { "\($0.id) \(String(format: "%.3f", $0.previousSeconds ?? 0))→\(String(format: "%.3f", $0.newSeconds)) s" }), set \(String(format: "%.3f", comparison.setRatio))x held \(comparison.held)"
                )
            }
        }
        let plain = seconds[false] ?? 0
        let gated = seconds[true] ?? 0
        print(
            String(
                format:
                    "day-two publish of the 2025-10 set: without the compile-time gate %.1f s, with it %.1f s (%.2fx)",
                plain, gated, gated / plain))
    }
}
