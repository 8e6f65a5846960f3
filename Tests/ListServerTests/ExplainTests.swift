import ContentBlockerEngine
import Converter
import Foundation
import Testing
@testable import ListServer

/// `explain` on small ABP inputs converted in process: exact answers for an exception, an
/// `$important` block, a `$domain` carve-out, `$generichide` and `$document` pages, and bad input.
@Suite struct ExplainTests {
    static let abp = """
    [Adblock Plus 2.0]
    ||ads.example^
    @@||ads.example/allowed/*
    ||tracker.example^$important
    @@||tracker.example^
    ||cdn.example/banner.js$domain=~carve.example
    ##.generic-ad
    news.example##.site-ad
    @@||quiet.example^$generichide
    @@||whole.example^$document
    """

    static func engine() throws -> ContentBlockerEngine {
        let lists = try ListConverter().convert([FilterListSource(id: "small", bytes: Array(abp.utf8))]).lists
        return try ContentBlockerEngine(lists: lists.map { ($0.id, $0.json) }, registrableDomains: try PublicSuffixFile.load())
    }

    func explain(_ url: String, page: String?, type: ABPRequestType) throws -> Explanation {
        try Self.engine().explain(try BlockerRequest(url: url, source: page, type: type))
    }

    func refs(_ rules: [RuleReference]) -> [String] { rules.map { "\($0.listID) #\($0.index)" } }

    @Test func anExceptionCancelsTheBlockBeforeIt() throws {
        let answer = try explain("https://ads.example/allowed/x.js", page: "https://site.example/", type: .script)
        #expect(answer.verdict == .allowedByException)
        #expect(answer.blockingRules.isEmpty)
        #expect(answer.exceptions.map { refs([$0.exception]) + refs($0.cancelled) } == [["network-hosts-00 #1", "network-hosts-00 #0"]])
        #expect(answer.exceptions.first?.exception.json == #"{"trigger":{"url-filter":"^[^:]+://+([^:/]+\\.)?ads\\.example/allowed/"},"action":{"type":"ignore-previous-rules"}}"#)
        let blocked = try explain("https://ads.example/other.js", page: "https://site.example/", type: .script)
        #expect(blocked.verdict == .blocked)
        #expect(refs(blocked.blockingRules) == ["network-hosts-00 #0"])
    }

    @Test func anImportantBlockBeatsItsException() throws {
        let answer = try explain("https://tracker.example/t.js", page: "https://site.example/", type: .script)
        #expect(answer.verdict == .blocked)
        #expect(refs(answer.blockingRules) == ["network-hosts-00 #2"])
        #expect(answer.exceptions.isEmpty)
    }

    @Test func aDomainCarveOutLeavesThoseSitesAlone() throws {
        let elsewhere = try explain("https://cdn.example/banner.js", page: "https://other.example/", type: .script)
        #expect(elsewhere.verdict == .blocked)
        #expect(refs(elsewhere.blockingRules) == ["network-host-paths-00 #0"])
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
        let news = try explain("https://news.example/story", page: nil, type: .document)
        #expect(news.hidingSelectors.map(\.selector) == [".generic-ad", ".site-ad"])
        #expect(news.hidingSelectors.map { "\($0.rule.listID) #\($0.rule.index)" } == ["cosmetic-generic-00 #0", "cosmetic-sites-00 #0"])
        #expect(news.pageExceptions.isEmpty)
    }

    @Test func aDocumentExceptionAllowsEverythingOnThePage() throws {
        let answer = try explain("https://ads.example/x.js", page: "https://whole.example/", type: .script)
        #expect(answer.verdict == .allowedByPageException)
        #expect(answer.exceptions.map { refs([$0.exception]) + refs($0.cancelled) } == [["network-hosts-00 #3", "network-hosts-00 #0"]])
        #expect(refs(answer.pageExceptions) == ["network-hosts-00 #3", "network-host-paths-00 #1", "cosmetic-generic-00 #2", "cosmetic-sites-00 #1"])
        #expect(answer.hidingSelectors.isEmpty)
    }

    @Test func badInputIsAUsageError() throws {
        let set = try WebKitTestSupport.writeSet(try ListConverter().convert([FilterListSource(id: "small", bytes: Array(Self.abp.utf8))]).lists)
        defer { try? FileManager.default.removeItem(at: set) }
        let long = "https://x.example/" + String(repeating: "a", count: ExplainCommand.maximumURLBytes)
        for arguments in [["ftp://x.example/a"], ["javascript:alert(1)"], ["https://x.example/", "--type", "bogus"],
                          [long], ["https://x.example/", "--page", "file:///etc/passwd"], [String]()] {
            #expect(ListServerMain.run(["explain"] + arguments + ["--set", set.path]) == 2, "\(arguments.map { $0.prefix(40) })")
        }
        #expect(ListServerMain.run(["explain", "https://ads.example/x.js", "--page", "https://a.example/", "--type", "script", "--set", set.path]) == 0)
    }

    @Test func aDamagedSetIsRefused() throws {
        let set = try WebKitTestSupport.writeSet(try ListConverter().convert([FilterListSource(id: "small", bytes: Array(Self.abp.utf8))]).lists)
        defer { try? FileManager.default.removeItem(at: set) }
        let file = set.appendingPathComponent("network-hosts-00.json")
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 3] ^= 0x01
        try bytes.write(to: file)
        #expect(throws: ExplainError.self) { try PublishedRuleSet.load(directory: set.path) }
        #expect(ListServerMain.run(["explain", "https://ads.example/x.js", "--set", set.path]) == 1)
    }
}
