import ContentBlockerEngine
import Converter
import Foundation
import ListSync
import OriginTestSupport
import PublicSuffix
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginServe

/// `explain` on small ABP inputs converted in process: exact answers for an exception, an
/// `$important` block, a `$domain` carve-out, `$generichide` and `$document` pages, and bad input.
@Suite struct ExplainTests {

    static func engine() throws -> ContentBlockerEngine {
        let lists = try ListConverter().convert([FilterListSource(id: "small", bytes: Array(ExplainFixture.abp.utf8))])
            .lists
        return try ContentBlockerEngine(
            lists: lists.map { ($0.id, $0.json) }, registrableDomains: try PublicSuffixFile.load())
    }

    func explain(_ url: String, page: String?, type: ABPRequestType) throws -> Explanation {
        try answer(url, page: page, type: type).explanation
    }

    /// The whole answer, its provenance read back from the provenance file the conversion's output encodes.
    func answer(_ url: String, page: String?, type: ABPRequestType) throws -> ExplainAnswer {
        let output = try ListConverter().convert([FilterListSource(id: "small", bytes: Array(ExplainFixture.abp.utf8))])
        let hashes = output.lists.map { SHA256Digest.hex(of: $0.json) }
        let file = ProvenanceFile.encode(output.provenance, listSHA256: hashes)
        let provenance = SetProvenance.make(
            fileBytes: file, path: "test",
            listSHA256: Dictionary(uniqueKeysWithValues: zip(output.lists.map(\.id), hashes)))
        let engine = try ContentBlockerEngine(
            lists: output.lists.map { ($0.id, $0.json) }, registrableDomains: try PublicSuffixFile.load())
        return ExplainAnswer.make(
            try BlockerRequest(url: url, source: page, type: type), engine: engine, provenance: provenance,
            manifestSHA256: "-")
    }

    /// `line: text` of each source line (all from the input "small"). Every host here is contested
    /// (an exception names it, or the block excludes pages), so the blocks sit in the path list.
    func lines(_ rule: RuleReference) -> [String] {
        rule.sources.map { ($0.upstream == "small" ? "" : "\($0.upstream):") + "\($0.line): \($0.text)" }
    }

    func refs(_ rules: [RuleReference]) -> [String] { rules.map { "\($0.listID) #\($0.index)" } }

    @Test func anExceptionCancelsTheBlockBeforeIt() throws {
        let answer = try explain("https://ads.example/allowed/x.js", page: "https://site.example/", type: .script)
        #expect(answer.verdict == .allowedByException)
        #expect(answer.blockingRules.isEmpty)
        #expect(
            answer.exceptions.map { refs([$0.exception]) + refs($0.cancelled) } == [
                ["network-paths-00 #4", "network-paths-00 #3"]
            ])
        #expect(
            answer.exceptions.first?.exception.json
                == #"{"trigger":{"url-filter":"^[^:]+://+([^:/]+\\.)?ads\\.example/allowed/"},"action":{"type":"ignore-previous-rules"}}"#
        )
        #expect(answer.exceptions.map { lines($0.exception) } == [["3: @@||ads.example/allowed/*"]])
        // The block's line and its later duplicate (line 12), which the converter merged into it.
        #expect(answer.exceptions.map { $0.cancelled.map(lines) } == [[["2: ||ads.example^", "12: ||ads.example^"]]])
        let blocked = try explain("https://ads.example/other.js", page: "https://site.example/", type: .script)
        #expect(blocked.verdict == .blocked)
        #expect(refs(blocked.blockingRules) == ["network-paths-00 #3"])
        #expect(blocked.blockingRules.map(lines) == [["2: ||ads.example^", "12: ||ads.example^"]])
    }

    @Test func anImportantBlockBeatsItsException() throws {
        let answer = try explain("https://tracker.example/t.js", page: "https://site.example/", type: .script)
        #expect(answer.verdict == .blocked)
        #expect(refs(answer.blockingRules) == ["network-paths-00 #5"])
        #expect(answer.blockingRules.map(lines) == [["4: ||tracker.example^$important"]])
        #expect(answer.exceptions.isEmpty)
    }

    @Test func aDomainCarveOutLeavesThoseSitesAlone() throws {
        let elsewhere = try explain("https://cdn.example/banner.js", page: "https://other.example/", type: .script)
        #expect(elsewhere.verdict == .blocked)
        #expect(refs(elsewhere.blockingRules) == ["network-paths-00 #0"])
        #expect(elsewhere.blockingRules.map(lines) == [["6: ||cdn.example/banner.js$domain=~carve.example"]])
        for page in ["https://carve.example/", "https://www.carve.example/a"] {
            let carved = try explain("https://cdn.example/banner.js", page: page, type: .script)
            #expect(carved.verdict == .allowedNoRule, "\(page)")
            #expect(carved.blockingRules.isEmpty && carved.exceptions.isEmpty, "\(page)")
        }
    }

    @Test func aGenerichidePageKeepsOnlyItsSiteHiding() throws {
        let quiet = try explain("https://quiet.example/", page: nil, type: .document)
        #expect(quiet.verdict == .allowedNoRule)
        #expect(quiet.hidingSelectors.isEmpty)
        #expect(refs(quiet.pageExceptions) == ["cosmetic-generic-00 #1"])
        #expect(quiet.pageExceptions.map(lines) == [["9: @@||quiet.example^$generichide"]])
        let news = try explain("https://news.example/story", page: nil, type: .document)
        #expect(news.hidingSelectors.map(\.selector) == [".generic-ad", ".site-ad"])
        #expect(
            news.hidingSelectors.map { "\($0.rule.listID) #\($0.rule.index)" } == [
                "cosmetic-generic-00 #0", "cosmetic-sites-00 #0",
            ])
        #expect(news.hidingSelectors.map { lines($0.rule) } == [["7: ##.generic-ad"], ["8: news.example##.site-ad"]])
        #expect(news.pageExceptions.isEmpty)
    }

    @Test func aDocumentExceptionAllowsEverythingOnThePage() throws {
        let answer = try explain("https://ads.example/x.js", page: "https://whole.example/", type: .script)
        #expect(answer.verdict == .allowedByPageException)
        #expect(
            answer.exceptions.map { refs([$0.exception]) + refs($0.cancelled) } == [
                ["network-paths-00 #6", "network-paths-00 #3"]
            ])
        // The generic hiding list's two site exceptions are one rule; the answer names the line for this page.
        #expect(
            refs(answer.pageExceptions) == ["network-paths-00 #6", "cosmetic-generic-00 #1", "cosmetic-sites-00 #1"])
        // One ABP line, placed at the end of every list it must cancel.
        #expect(answer.pageExceptions.map(lines) == Array(repeating: ["10: @@||whole.example^$document"], count: 3))
        #expect(answer.exceptions.map { $0.cancelled.map(lines) } == [[["2: ||ads.example^", "12: ||ads.example^"]]])
        #expect(answer.hidingSelectors.isEmpty)
    }

    @Test func aSkippedCSPRuleIsTheAnswerForItsHost() throws {
        let full = try answer("https://csp.example/", page: nil, type: .document)
        #expect(full.explanation.verdict == .allowedNoRule)
        #expect(
            full.skipped == [
                SkippedSource(
                    upstream: "small", line: 11, text: "||csp.example^$csp=script-src 'none'", reason: "option-csp")
            ])
        #expect(full.provenance == "complete")
        #expect(
            ExplanationText.human(full).contains("skipped: option-csp: small:11: ||csp.example^$csp=script-src 'none'"))
        let json = try JSONSerialization.jsonObject(with: Data(ExplanationJSON.render(full).utf8)) as? [String: Any]
        #expect((json?["skipped"] as? [[String: Any]])?.first?["line"] as? Int == 11)
        // A subdomain of the host the line names finds it too; another host does not.
        let subdomain = try answer("https://img.csp.example/a.png", page: "https://site.example/", type: .image)
        #expect(subdomain.skipped.map(\.line) == [11])
        let other = try answer("https://notcsp.example/", page: nil, type: .document)
        #expect(other.skipped.isEmpty)
    }

    @Test func aProvenanceFileForOtherListsGivesNoSources() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "explain-stale-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        // Every list of `changed` differs from the original's, so its provenance file fits none of them.
        let changed = ExplainFixture.abp.replacingOccurrences(of: "ads.example", with: "ads2.example")
            .replacingOccurrences(of: "banner.js", with: "banner2.js")
            .replacingOccurrences(of: "##.generic-ad", with: "##.generic-ad2").replacingOccurrences(
                of: ".site-ad", with: ".site-ad2")
        for (name, text) in [("original", ExplainFixture.abp), ("changed", changed)] {
            let input = scratch.appendingPathComponent("\(name).txt")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: input)
            #expect(
                ListServerCommandLine.run([
                    "convert", "--input", input.path, "--out", scratch.appendingPathComponent(name).path,
                ]) == 0)
        }
        let original = try PublishedRuleSet.load(directory: scratch.appendingPathComponent("original").path)
        #expect(SetProvenance.load(for: original).status == "complete")
        #expect(
            SetProvenance.load(for: original).sourceLines(listID: "network-paths-00", index: 3).map(\.line) == [2, 12])
        let stale = scratch.appendingPathComponent("original").appendingPathComponent(ProvenanceFile.fileName)
        try FileManager.default.removeItem(at: stale)
        try FileManager.default.copyItem(
            at: scratch.appendingPathComponent("changed").appendingPathComponent(ProvenanceFile.fileName), to: stale)
        let provenance = SetProvenance.load(for: original)
        #expect(provenance.status.hasPrefix("none: "), "\(provenance.status)")
        #expect(provenance.sourceLines(listID: "network-paths-00", index: 3).isEmpty)
        let engine = try original.engine(registrableDomains: try PublicSuffixFile.load())
        let staleAnswer = ExplainAnswer.make(
            try BlockerRequest(url: "https://ads.example/x.js", source: "https://site.example/", type: .script),
            engine: engine, provenance: provenance, manifestSHA256: original.manifestSHA256)
        #expect(staleAnswer.explanation.verdict == .blocked)
        #expect(staleAnswer.explanation.blockingRules.allSatisfy { $0.sources.isEmpty })
        #expect(staleAnswer.skipped.isEmpty)
        #expect(ExplanationText.human(staleAnswer).contains("sources   none: "))
    }

    /// The real CLI on the bundled snapshot: `convert --out`, then `explain --set --json`; the rule's
    /// source line is checked against the upstream file's own text.
    @Test func convertThenExplainNamesTheUpstreamLine() throws {
        let binary = try ListServerBinary.path()
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("explain-e2e-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let snapshot = Repository.root.appendingPathComponent("snapshot")
        let converted = try ChildRun.run(
            binary,
            [
                "convert", "--input", snapshot.appendingPathComponent("easylist.txt").path,
                "--input", snapshot.appendingPathComponent("easyprivacy.txt").path, "--out", out,
            ], timeout: 300)
        try #require(converted.status == 0, "\(converted.stderr)")
        let explained = try ChildRun.run(
            binary,
            [
                "explain", "https://tags.news.com.au/x.js", "--page", "https://example.com/", "--type", "script",
                "--set", out, "--json",
            ], timeout: 120)
        try #require(explained.status == 0, "\(explained.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: explained.stdout) as? [String: Any])
        #expect(json["provenance"] as? String == "complete")
        let explanation = try #require(json["explanation"] as? [String: Any])
        #expect(explanation["verdict"] as? String == "blocked")
        let sources = try #require(
            (explanation["blockingRules"] as? [[String: Any]])?.first?["sources"] as? [[String: Any]])
        let upstream = String(
            decoding: try Data(contentsOf: snapshot.appendingPathComponent("easyprivacy.txt")), as: UTF8.self
        )
        .split(separator: "\n", omittingEmptySubsequences: false)
        let line = try #require(upstream.firstIndex(of: "||tags.news.com.au^$script")) + 1
        #expect(sources.count == 1)
        #expect(sources.first?["upstream"] as? String == "easyprivacy")
        #expect(sources.first?["line"] as? Int == line)
        #expect(sources.first?["text"] as? String == String(upstream[line - 1]))
    }

    @Test func badInputIsAUsageError() throws {
        let set = try WebKitTestSupport.writeSet(
            try ListConverter().convert([FilterListSource(id: "small", bytes: Array(ExplainFixture.abp.utf8))]).lists)
        defer { try? FileManager.default.removeItem(at: set) }
        let long = "https://x.example/" + String(repeating: "a", count: ExplainCommand.maximumURLBytes)
        for arguments in [
            ["ftp://x.example/a"], ["javascript:alert(1)"], ["https://x.example/", "--type", "bogus"],
            [long], ["https://x.example/", "--page", "file:///etc/passwd"], [String](),
        ] {
            #expect(
                ListServerCommandLine.run(["explain"] + arguments + ["--set", set.path]) == 2,
                "\(arguments.map { $0.prefix(40) })")
        }
        #expect(
            ListServerCommandLine.run([
                "explain", "https://ads.example/x.js", "--page", "https://a.example/", "--type", "script", "--set",
                set.path,
            ]) == 0)
    }

    @Test func aDamagedSetIsRefused() throws {
        let set = try WebKitTestSupport.writeSet(
            try ListConverter().convert([FilterListSource(id: "small", bytes: Array(ExplainFixture.abp.utf8))]).lists)
        defer { try? FileManager.default.removeItem(at: set) }
        let file = set.appendingPathComponent("network-paths-00.json")
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 3] ^= 0x01
        try bytes.write(to: file)
        #expect(throws: ExplainError.self) { try PublishedRuleSet.load(directory: set.path) }
        #expect(ListServerCommandLine.run(["explain", "https://ads.example/x.js", "--set", set.path]) == 1)
    }
}
