import Foundation
import TestSupport
import Testing

@testable import Converter

/// ABP regexes with `{n,m}` and `|`, spelled out into WebKit url-filters whose union is the regex.
@Suite struct RegexExpansionTests {
    private func rewrite(_ source: String) -> Result<[String], SkipReasonError> {
        RegexFilterRewriter.rewrite(Array(source.utf8)[...]).map { filters in
            filters.map { String(decoding: $0, as: UTF8.self) }
        }
    }

    private func block(_ filter: String, _ extra: String = "") -> String {
        #"{"trigger":{"url-filter":"\#(filter)"\#(extra)},"action":{"type":"block"}}"#
    }

    @Test func countsRepeatTheirAtomClassOrGroup() {
        let cases: [(String, [String])] = [
            ("xa{3}", ["xaaa"]), ("xa{2,4}", ["xaaa?a?"]), ("xa{2,}", ["xaa+"]), ("xa{1,}", ["xa+"]),
            ("xa{0,}", ["xa*"]), ("xa{0,1}", ["xa?"]), ("xa{0}y", ["xy"]), (#"x\.{2}"#, [#"x\.\."#]),
            (#"/[a-f\d]{2,3}\."#, [#"/[a-f0-9][a-f0-9][a-f0-9]?\."#]), (#"\w{2,}"#, ["[A-Za-z0-9_][A-Za-z0-9_]+"]),
            ("x.{2,}", ["x..+"]), ("x[^/]{16}", ["x" + String(repeating: "[^/]", count: 16)]),
            ("(?:ab){2}", ["(ab)(ab)"]), ("(ab){1,2}$", ["(ab)(ab)?$"]), ("(a+b){2,}", ["(a+b)(a+b)+"]),
        ]
        for (source, expected) in cases {
            #expect(rewrite(source) == .success(expected), "\(source)")
        }
    }

    @Test func alternationsBecomeOneFilterPerBranch() {
        let cases: [(String, [String])] = [
            ("^a|b$", ["^a", "b$"]),
            ("x(a|bc)y", ["xay", "xbcy"]),
            ("x(?:a|b)?y", ["x(a)?y", "x(b)?y"]),
            ("x(a|)y", ["xay", "xy"]),
            ("x(a|b){2}", ["xaa", "xab", "xba", "xbb"]),
            ("x(a(b|c))d", ["x(ab)d", "x(ac)d"]),
            ("x(a|a)", ["xa"]),
            // An anchor that ends up first or last in its filter is the filter's anchor.
            (#"\.(js|j$)"#, [#"\.js"#, #"\.j$"#]),
            ("(^|/)ad", ["^ad", "/ad"]), ("xa$|^b", ["xa$", "^b"]), ("(^a)b", ["^(a)b"]), (#"\.(j$)"#, [#"\.(j)$"#]),
        ]
        for (source, expected) in cases {
            #expect(rewrite(source) == .success(expected), "\(source)")
        }
    }

    @Test func whatCannotBeSpelledOutExactlyIsSkippedWithItsReason() throws {
        let sixteen = (1...16).map { "b\($0)" }.joined(separator: "|")
        #expect(try rewrite("a(\(sixteen))").get().count == RegexExpansion.maxPatterns)
        let cases: [(String, SkipReason)] = [
            ("a(\(sixteen)|c)", .regexAlternation),  // above the cap
            ("(a|b)(c|d)(e|f)(g|h)(i|j)", .regexAlternation),  // 32 by product
            ("x(a|b)+", .regexAlternation), ("x(a|b)*", .regexAlternation), ("x(a|b){2,}", .regexAlternation),
            ("a|", .regexAlternation), ("(a|)", .regexAlternation), ("(|)", .regexAlternation), ("^|a", .invalidFilter),
            ("a{0}", .regexRepetition),
            ("a{129}", .regexRepetition), ("x.{17}", .regexRepetition), ("x[^/]{2,17}", .regexRepetition),
            ("x(a.){17,}", .regexRepetition), ("a{2,1}", .regexRepetition), ("a{,2}", .regexRepetition),
            ("(^a)?b", .regexAnchor), ("x(a$)b", .regexAnchor), ("a?(^b)", .regexAnchor), ("a(b|^c)", .regexAnchor),
            (#"(a|b)\1"#, .regexBackreference), ("a{2}?", .regexUnsupported),
        ]
        for (source, reason) in cases {
            #expect(rewrite(source) == .failure(SkipReasonError(reason: reason)), "\(source)")
        }
    }

    /// One rule per filter, each with the line's other trigger keys and its action, next to each other.
    @Test func eachFilterIsARuleWithTheLinesTriggerAndAction() {
        let types = #","resource-type":["script"],"if-domain":["*site.example"]"#
        let exception = RuleConversionFixture(#"@@/^https?:\/\/(cdn|static)\.example\//$script,domain=site.example"#)
        #expect(
            exception.networkJSON == [
                #"{"trigger":{"url-filter":"^https?://cdn\\.example/"\#(types)},"action":{"type":"ignore-previous-rules"}}"#,
                #"{"trigger":{"url-filter":"^https?://static\\.example/"\#(types)},"action":{"type":"ignore-previous-rules"}}"#,
            ])
        #expect(exception.report.converted == 1)
        #expect(exception.rules.network.map(\.key).last?.hasSuffix("#1") == true)
        #expect(
            RuleConversionFixture(#"/\/[0-9a-f]{4}\/ad\.js/$script"#).networkJSON == [
                block(#"/[0-9a-f][0-9a-f][0-9a-f][0-9a-f]/ad\\.js"#, #","resource-type":["script"]"#)
            ])
        let both = RuleConversionFixture("||ads.example^\n/track(er|ing)\\d{1,2}\\./\n")
        #expect(
            both.networkJSON.suffix(2) == [block(#"tracker[0-9][0-9]?\\."#), block(#"tracking[0-9][0-9]?\\."#)])
        #expect(both.report.converted == 2)
    }

    /// Seeded random regexes over a small alphabet: a URL matches one of the filters exactly when it matches
    /// the regex (both read by ICU through `NSRegularExpression`, which reads these forms as JavaScript does).
    @Test func theUnionOfTheFiltersMatchesWhatTheRegexMatches() throws {
        var generator = SeededGenerator(seed: 0x5E9A)
        var expanded = 0
        var compared = 0
        for _ in 0..<3_000 {
            let source = RandomRegex.branches(depth: 2, using: &generator)
            guard case .success(let filters) = rewrite(source) else { continue }
            if filters.count > 1 || source.contains("{") { expanded += 1 }
            let regex = try NSRegularExpression(pattern: source)
            let union = try filters.map { try NSRegularExpression(pattern: $0) }
            for _ in 0..<40 {
                let url = String(
                    (0..<Int.random(in: 0...7, using: &generator)).map { _ in "ab/".randomElement(using: &generator)! })
                let range = NSRange(url.startIndex..., in: url)
                let meant = regex.firstMatch(in: url, range: range) != nil
                let matched = union.contains { $0.firstMatch(in: url, range: range) != nil }
                #expect(meant == matched, "\(source) → \(filters) on \(url)")
                compared += 1
            }
        }
        #expect(expanded > 300, "the generator must exercise the expansion")
        #expect(compared > 15_000)
    }
}

/// Small JavaScript regexes with groups, `|`, `?`, `*`, `+`, counts and branch anchors.
private enum RandomRegex {
    static func branches(depth: Int, using generator: inout SeededGenerator) -> String {
        (0..<Int.random(in: 1...3, using: &generator)).map { _ in branch(depth: depth, using: &generator) }
            .joined(separator: "|")
    }

    private static func branch(depth: Int, using generator: inout SeededGenerator) -> String {
        var text = Int.random(in: 0..<6, using: &generator) == 0 ? "^" : ""
        for _ in 0..<Int.random(in: 0...3, using: &generator) {
            text += atom(depth: depth, using: &generator) + quantifier(using: &generator)
        }
        if Int.random(in: 0..<6, using: &generator) == 0 { text += "$" }
        return text
    }

    private static func atom(depth: Int, using generator: inout SeededGenerator) -> String {
        switch Int.random(in: 0..<(depth > 0 ? 6 : 4), using: &generator) {
        case 0: "a"
        case 1: "b"
        case 2: "[a/]"
        case 3: "."
        default:
            "(" + (Bool.random(using: &generator) ? "?:" : "") + branches(depth: depth - 1, using: &generator) + ")"
        }
    }

    private static func quantifier(using generator: inout SeededGenerator) -> String {
        ["", "", "", "?", "*", "+", "{2}", "{0,2}", "{1,}", "{2,3}", "{0}"].randomElement(using: &generator)!
    }
}
