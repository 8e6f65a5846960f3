import Converter
import Foundation
import ListSync
import Testing
@testable import ListOrigin
@testable import OriginRefresh
@testable import OriginStore

/// Real WebKit accepts what must be accepted and rejects, with its own message, what it rejects:
/// the publish gate depends on both.
@Suite struct WebKitCompileTests {
    @Test func knownGoodListCompiles() throws {
        let good = "[" + WebKitTestSupport.rule(#""url-filter":"^https?://+([^:/]+\\.)?ads\\.example[/:]","load-type":["third-party"]"#) + ","
            + #"{"trigger":{"url-filter":".*","if-domain":["*news.example"]},"action":{"type":"ignore-previous-rules"}}"# + "]"
        let verdicts = try WebKitTestSupport.verifier().verify([(id: "good", json: Array(good.utf8))])
        #expect(verdicts.count == 1)
        #expect(verdicts.first?.id == "good")
        #expect(verdicts.first?.rules == 2)
        #expect(verdicts.first?.error == nil)
    }

    @Test func knownBadListsFailWithWebKitsMessage() throws {
        let tooMany = "[" + (0...150_000).map { WebKitTestSupport.rule(#""url-filter":"ad\#($0)""#) }.joined(separator: ",") + "]"
        let cases: [(id: String, json: String, message: String)] = [
            ("alternation", "[" + WebKitTestSupport.rule(#""url-filter":"a|b""#) + "]", "Invalid or unsupported regular expression."),
            ("uppercase-domain", "[" + WebKitTestSupport.rule(#""url-filter":".*","if-domain":["News.Example"]"#) + "]",
             "Domains must be lower case ASCII. Use punycode to encode non-ASCII characters."),
            ("empty", "[]", "Empty extension."),
            ("too-many", tooMany, "Too many rules in JSON array."),
        ]
        let good = "[" + WebKitTestSupport.rule(#""url-filter":"ads""#) + "]"
        // One batch, with a good list in the middle: one bad list must not spoil the verdicts of others.
        var batch = cases.map { (id: $0.id, json: Array($0.json.utf8)) }
        batch.insert((id: "good", json: Array(good.utf8)), at: 2)
        let verdicts = try WebKitTestSupport.verifier().verify(batch)
        #expect(verdicts.map(\.id) == batch.map(\.id))
        for expected in cases {
            let verdict = try #require(verdicts.first { $0.id == expected.id })
            #expect(!verdict.ok, "\(expected.id) should be rejected")
            #expect(verdict.error?.hasPrefix(expected.message) == true, "\(expected.id): got \(verdict.error ?? "nil")")
        }
        #expect(verdicts.first { $0.id == "alternation" }?.error?.contains("Disjunctions are not supported") == true,
                "WebKit's stderr detail is kept next to the message")
        #expect(verdicts.first { $0.id == "too-many" }?.rules == 150_001)
        #expect(verdicts.first { $0.id == "good" }?.ok == true)
    }

    @Test func publishGateRejectsWhatWebKitRejects() throws {
        let location = try #require(WebKitToolLocation.find(currentDirectory: WebKitTestSupport.repository.path))
        let gate = DeferredWebKitGate(location: location, required: true, log: Log(label: "test", sink: { _ in }))
        let good = RuleList(id: "good", json: Array(("[" + WebKitTestSupport.rule(#""url-filter":"ads""#) + "]").utf8), ruleCount: 1)
        let bad = RuleList(id: "bad", json: Array(("[" + WebKitTestSupport.rule(#""url-filter":"(ads|track)""#) + "]").utf8), ruleCount: 1)
        let verdicts = gate.rejections(of: [bad, good, bad])
        #expect(verdicts.count == 3)
        #expect(verdicts[1] == nil)
        #expect(verdicts[0]?.hasPrefix("Invalid or unsupported regular expression.") == true)
        #expect(verdicts[2]?.hasPrefix("Invalid or unsupported regular expression.") == true)
        #expect(gate.rejection(of: good) == nil)
    }

    @Test func unavailableInterpreterIsReportedNotCrashed() throws {
        let location = WebKitToolLocation(python: URL(fileURLWithPath: "/nonexistent/python3"),
                                          script: WebKitTestSupport.repository.appendingPathComponent(WebKitToolLocation.scriptRelativePath))
        #expect(WebKitVerifier.available(location: location) == nil)
        #expect(WebKitVerifier.available(location: nil) == nil)
    }

    @Test func verifyCommandCompilesOnlyManifestListsAndSetsExitCodes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webkit-verify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = "[" + WebKitTestSupport.rule(#""url-filter":"ads""#) + "]"
        let bad = "[" + WebKitTestSupport.rule(#""url-filter":"a{2}""#) + "]"
        try Data(good.utf8).write(to: directory.appendingPathComponent("good.json"))
        try Data(bad.utf8).write(to: directory.appendingPathComponent("bad.json"))
        func manifest(_ files: [String]) throws {
            let entries = files.map { #"{"id":"\#($0)","file":"\#($0).json","sha256":"0","rules":1}"# }.joined(separator: ",")
            try Data(#"{"format":1,"lists":[\#(entries)]}"#.utf8).write(to: directory.appendingPathComponent("manifest.json"))
        }
        try manifest(["good"])
        #expect(ListServerCommandLine.run(["verify", directory.path]) == 0, "bad.json is not in the manifest, so it is not compiled")
        try manifest(["good", "bad"])
        #expect(ListServerCommandLine.run(["verify", directory.path]) == 1)
        #expect(ListServerCommandLine.run(["verify"]) == 2)
        #expect(ListServerCommandLine.run(["verify", directory.appendingPathComponent("missing").path]) == 2)
        #expect(ListServerCommandLine.run(["verify", "--bogus", directory.path]) == 2)
    }

    /// What CI must show: the bundled 2025-10 snapshot converts into lists WebKit compiles, every one.
    @Test func snapshot202510CompilesWithZeroFailures() throws {
        try expectAllCompile(try WebKitTestSupport.snapshotSources())
    }

    @Test func fixtures20201029CompileWithZeroFailures() throws {
        let sources = [try WebKitTestSupport.source("Tests/Fixtures/lists/easylist-2020-10-29.txt", id: "easylist"),
                       try WebKitTestSupport.source("Tests/Fixtures/lists/easyprivacy-2020-10-29.txt", id: "easyprivacy")]
        try expectAllCompile(sources)
    }

    private func expectAllCompile(_ sources: [FilterListSource]) throws {
        let output = try ListConverter().convert(sources)
        #expect(output.lists.count > 1, "the real input makes several lists")
        let verdicts = try WebKitTestSupport.verifier().verify(output.lists)
        #expect(verdicts.count == output.lists.count)
        for (list, verdict) in zip(output.lists, verdicts) {
            #expect(verdict.id == list.id)
            #expect(verdict.error == nil, "WebKit rejected \(list.id): \(verdict.error ?? "")")
            #expect(verdict.rules == list.ruleCount, "\(list.id): WebKit saw \(verdict.rules ?? -1) rules, converter said \(list.ruleCount)")
        }
    }
}

extension WebKitVerifier.Verdict: CustomStringConvertible {
    public var description: String { "\(id): \(rules.map(String.init) ?? "-") rules, \(error ?? "ok"), \(seconds) s" }
}
