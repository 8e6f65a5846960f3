import Converter
import Foundation
import ListSync
import OriginTestSupport
import TestSupport
import Testing
import WebKitCompiler

@testable import ListOrigin
@testable import OriginRefresh
@testable import OriginStore

/// Real WebKit accepts what must be accepted and rejects, with its own message, what it rejects:
/// the publish gate depends on both.
@Suite struct WebKitCompileTests {
    @Test func knownGoodListCompiles() throws {
        let good =
            "["
            + WebKitTestSupport.rule(
                #""url-filter":"^https?://+([^:/]+\\.)?ads\\.example[/:]","load-type":["third-party"]"#) + ","
            + #"{"trigger":{"url-filter":".*","if-domain":["*news.example"]},"action":{"type":"ignore-previous-rules"}}"#
            + "]"
        let verdicts = try WebKitTestSupport.compiler().compile([
            WebKitInput(id: "good", json: Array(good.utf8), rules: 2)
        ])
        #expect(verdicts.count == 1)
        #expect(verdicts.first?.id == "good")
        #expect(verdicts.first?.rules == 2)
        #expect(verdicts.first?.error == nil)
    }

    @Test func knownBadListsFailWithWebKitsMessage() throws {
        let tooMany =
            "[" + (0...150_000).map { WebKitTestSupport.rule(#""url-filter":"ad\#($0)""#) }.joined(separator: ",") + "]"
        let cases: [(id: String, json: String, message: String)] = [
            (
                "alternation", "[" + WebKitTestSupport.rule(#""url-filter":"a|b""#) + "]",
                "Invalid or unsupported regular expression."
            ),
            (
                "uppercase-domain",
                "[" + WebKitTestSupport.rule(#""url-filter":".*","if-domain":["News.Example"]"#) + "]",
                "Domains must be lower case ASCII. Use punycode to encode non-ASCII characters."
            ),
            ("empty", "[]", "Empty extension."),
            ("too-many", tooMany, "Too many rules in JSON array."),
        ]
        let good = "[" + WebKitTestSupport.rule(#""url-filter":"ads""#) + "]"
        // One batch, with a good list in the middle: one bad list must not spoil the verdicts of others.
        var batch = cases.map { WebKitInput(id: $0.id, json: Array($0.json.utf8)) }
        batch.insert(WebKitInput(id: "good", json: Array(good.utf8)), at: 2)
        let verdicts = try WebKitTestSupport.compiler().compile(batch)
        #expect(verdicts.map(\.id) == batch.map(\.id))
        for expected in cases {
            let verdict = try #require(verdicts.first { $0.id == expected.id })
            #expect(!verdict.ok, "\(expected.id) should be rejected")
            #expect(verdict.error?.hasPrefix(expected.message) == true, "\(expected.id): got \(verdict.error ?? "nil")")
        }
        #expect(
            verdicts.first { $0.id == "alternation" }?.error?.contains("Disjunctions are not supported") == true,
            "WebKit's stderr detail is kept next to the message")
        #expect(verdicts.first { $0.id == "good" }?.ok == true)
    }

    @Test func publishGateRejectsWhatWebKitRejects() throws {
        let gate = DeferredWebKitGate(
            helper: try WebKitTestSupport.helper(), required: true, log: Log(label: "test", sink: { _ in }))
        let good = RuleList(
            id: "good", json: Array(("[" + WebKitTestSupport.rule(#""url-filter":"ads""#) + "]").utf8), ruleCount: 1)
        let bad = RuleList(
            id: "bad", json: Array(("[" + WebKitTestSupport.rule(#""url-filter":"(ads|track)""#) + "]").utf8),
            ruleCount: 1)
        let verdicts = gate.rejections(of: [bad, good, bad])
        #expect(verdicts.count == 3)
        #expect(verdicts[1] == nil)
        #expect(
            verdicts[0]
                == "Invalid or unsupported regular expression. (Error while parsing (ads|track): Disjunctions are not supported yet.)"
        )
        #expect(verdicts[2] == verdicts[0])
        #expect(gate.rejection(of: good) == nil)
    }

    /// One helper answers batch after batch: WebKit is loaded once, not per call.
    @Test func oneHelperCompilesManyBatches() throws {
        let compiler = try WebKitTestSupport.compiler()
        let good = WebKitInput(
            id: "good", json: Array(("[" + WebKitTestSupport.rule(#""url-filter":"ads""#) + "]").utf8))
        let bad = WebKitInput(
            id: "bad", json: Array(("[" + WebKitTestSupport.rule(#""url-filter":"a{2}""#) + "]").utf8))
        for _ in 0..<20 {
            let verdicts = try compiler.compile([good, bad])
            #expect(verdicts.map(\.ok) == [true, false])
        }
        #expect(compiler.isUsable)
    }

    /// Helpers leave nothing behind: when their pool is dropped, their stdin closes, and each
    /// removes its filter store before it exits.
    @Test func droppedHelpersRemoveTheirFilterStores() throws {
        let scratch = ScratchDirectory("webkit-store")
        var pool: WebKitCompilerPool? = WebKitCompilerPool(
            helper: try WebKitTestSupport.helper(environment: ["TMPDIR": scratch.path]), size: 2)
        let good = WebKitInput(
            id: "good", json: Array(("[" + WebKitTestSupport.rule(#""url-filter":"ads""#) + "]").utf8))
        #expect(pool?.compile([good, good, good]).map(\.ok) == [true, true, true])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.path).count == 2,
            "each helper's store is in TMPDIR")
        pool = nil
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)
    }

    /// A helper left idle is stopped (it holds WebKit's memory); the next batch starts another.
    @Test func idleHelpersAreStoppedAndReplaced() async throws {
        let scratch = ScratchDirectory("webkit-idle")
        let pool = WebKitCompilerPool(
            helper: try WebKitTestSupport.helper(environment: ["TMPDIR": scratch.path]), size: 1, idleSeconds: 0.5)
        let good = WebKitInput(
            id: "good", json: Array(("[" + WebKitTestSupport.rule(#""url-filter":"ads""#) + "]").utf8))
        #expect(pool.compile([good]).map(\.ok) == [true])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.path).count == 1,
            "one helper, its store in TMPDIR")
        let stopped = await eventually(timeout: 30) {
            (try? FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty) == true
        }
        #expect(stopped, "the idle helper was stopped and removed its store")
        #expect(pool.compile([good]).map(\.ok) == [true])
    }

    /// The library name from the environment, pointed at one that does not exist: WebKit is absent.
    static let missingWebKit: [String: String?] = [WebKitCompiler.libraryVariable: "libwebkit2gtk-absent.so.0"]

    @Test func missingWebKitIsReportedWithThePackageToInstall() throws {
        #expect {
            _ = try WebKitCompiler(helper: try WebKitTestSupport.helper(environment: Self.missingWebKit))
        } throws: { error in
            guard case WebKitCompileFailure.unavailable(let reason) = error else { return false }
            return reason.contains("libwebkit2gtk-absent.so.0")
                && "\(error)".contains("install the package libwebkit2gtk-4.1-0")
        }
    }

    /// "auto" publishes without WebKit when it is absent; "on" rejects every list, saying what to install.
    @Test func gateWithoutWebKitFallsBackOnAutoAndFailsClosedOnOn() throws {
        let helper = try WebKitTestSupport.helper(environment: Self.missingWebKit)
        let list = RuleList(
            id: "good", json: Array(("[" + WebKitTestSupport.rule(#""url-filter":"ads""#) + "]").utf8), ruleCount: 1)
        let autoLog = LogLines()
        let auto = try #require(try GateSelection.make(setting: "auto", log: autoLog.log, helper: helper))
        #expect(auto.rejections(of: [list, list]) == [nil, nil])
        #expect(autoLog.lines.contains { $0.contains("publishing without it") }, "\(autoLog.lines)")
        let on = try #require(try GateSelection.make(setting: "on", log: LogLines().log, helper: helper))
        let rejections = on.rejections(of: [list])
        #expect(rejections.count == 1)
        #expect(rejections[0]?.contains("install the package libwebkit2gtk-4.1-0") == true, "\(rejections)")
        #expect(try GateSelection.make(setting: "off", log: LogLines().log, helper: helper) == nil)
    }

    /// `listserver verify` as a process (it starts itself as the helper).
    @Test func verifyCommandCompilesOnlyManifestListsAndSetsExitCodes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "webkit-verify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = "[" + WebKitTestSupport.rule(#""url-filter":"ads""#) + "]"
        let bad = "[" + WebKitTestSupport.rule(#""url-filter":"a{2}""#) + "]"
        try Data(good.utf8).write(to: directory.appendingPathComponent("good.json"))
        try Data(bad.utf8).write(to: directory.appendingPathComponent("bad.json"))
        func manifest(_ files: [String]) throws {
            let entries = files.map { #"{"id":"\#($0)","file":"\#($0).json","sha256":"0","rules":1}"# }.joined(
                separator: ",")
            try Data(#"{"format":1,"lists":[\#(entries)]}"#.utf8).write(
                to: directory.appendingPathComponent("manifest.json"))
        }
        let binary = try ListServerBinary.path()
        func verify(_ arguments: [String], environment: [String: String?] = [:]) throws -> ChildRun {
            try ChildRun.run(binary, ["verify"] + arguments, environment: environment, timeout: 120)
        }
        try manifest(["good"])
        let onlyGood = try verify([directory.path])
        #expect(onlyGood.status == 0, "bad.json is not in the manifest, so it is not compiled: \(onlyGood.output)")
        try manifest(["good", "bad"])
        let withBad = try verify([directory.path])
        #expect(withBad.status == 1)
        #expect(
            withBad.stdoutText.contains("Error while parsing a{2}: Arbitrary atom repetitions are not supported."),
            "\(withBad.output)")
        let absent = try verify([directory.path], environment: Self.missingWebKit)
        #expect(absent.status == 1)
        #expect(absent.stderr.contains("install the package libwebkit2gtk-4.1-0"), "\(absent.output)")
        #expect(try verify([]).status == 2)
        #expect(try verify([directory.appendingPathComponent("missing").path]).status == 2)
        #expect(try verify(["--bogus", directory.path]).status == 2)
    }

    /// What CI must show: the bundled 2025-10 snapshot converts into lists WebKit compiles, every one.
    @Test func snapshot202510CompilesWithZeroFailures() throws {
        try expectAllCompile(try WebKitTestSupport.snapshotSources())
    }

    @Test func fixtures20201029CompileWithZeroFailures() throws {
        let sources = [
            try WebKitTestSupport.source("Tests/Fixtures/lists/easylist-2020-10-29.txt", id: "easylist"),
            try WebKitTestSupport.source("Tests/Fixtures/lists/easyprivacy-2020-10-29.txt", id: "easyprivacy"),
        ]
        try expectAllCompile(sources)
    }

    private func expectAllCompile(_ sources: [FilterListSource]) throws {
        let output = try ListConverter().convert(sources)
        #expect(output.lists.count > 1, "the real input makes several lists")
        let verdicts = try WebKitCompilerPool(helper: try WebKitTestSupport.helper())
            .compile(output.lists.map { WebKitInput(id: $0.id, json: $0.json, rules: $0.ruleCount) })
        #expect(verdicts.count == output.lists.count)
        for (list, verdict) in zip(output.lists, verdicts) {
            #expect(verdict.id == list.id)
            #expect(verdict.error == nil, "WebKit rejected \(list.id): \(verdict.error ?? "")")
        }
    }
}

extension WebKitVerdict: CustomStringConvertible {
    public var description: String { "\(id): \(rules.map(String.init) ?? "-") rules, \(error ?? "ok"), \(seconds) s" }
}
