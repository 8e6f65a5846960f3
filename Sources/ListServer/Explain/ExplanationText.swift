import ContentBlockerEngine
import Foundation

/// The two renderings of an explanation: lines for a person, JSON for a machine.
enum ExplanationText {
    /// Hiding rules listed in the human form; `--json` has them all.
    static let hidingRulesShown = 20

    static func json(_ explanation: Explanation, manifestSHA256: String) -> String {
        struct Envelope: Encodable {
            var manifestSHA256: String
            var explanation: Explanation
            enum CodingKeys: String, CodingKey { case manifestSHA256 = "manifest_sha256", explanation }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(Envelope(manifestSHA256: manifestSHA256, explanation: explanation))) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    static func human(_ explanation: Explanation, manifestSHA256: String) -> String {
        var lines = [
            "request   \(explanation.url)",
            "          \(explanation.resourceType.rawValue), \(explanation.loadContext.rawValue), \(explanation.loadType.rawValue)",
            "page      \(explanation.page)",
            "set       manifest sha256 \(manifestSHA256.prefix(16))…",
            "decision  \(headline(explanation.verdict))",
        ]
        if !explanation.blockingRules.isEmpty {
            lines.append("blocked by:")
            lines += explanation.blockingRules.map { "  " + describe($0) }
        }
        for cancellation in explanation.exceptions {
            lines.append("exception " + describe(cancellation.exception))
            lines += cancellation.cancelled.map { "  cancels " + describe($0) }
        }
        if !explanation.otherActions.isEmpty {
            lines.append("other actions in force:")
            lines += explanation.otherActions.map { "  " + describe($0) }
        }
        if !explanation.pageExceptions.isEmpty {
            lines.append("page-level exceptions in force (each cancels the earlier rules of its list on this page, hiding included):")
            lines += explanation.pageExceptions.map { "  " + describe($0) }
        }
        let hiding = explanation.hidingSelectors
        lines.append("hiding on the page: \(hiding.count) rule(s)" + (hiding.isEmpty ? "" : ":"))
        for selector in hiding.prefix(hidingRulesShown) {
            lines.append("  \(selector.rule.listID) #\(selector.rule.index)  \(selector.selector.prefix(160))")
        }
        if hiding.count > hidingRulesShown {
            lines.append("  … and \(hiding.count - hidingRulesShown) more (--json lists all)")
        }
        return lines.joined(separator: "\n")
    }

    static func headline(_ verdict: Verdict) -> String {
        switch verdict {
        case .blocked: return "BLOCKED"
        case .allowedNoRule: return "allowed: no rule matches"
        case .allowedByException: return "allowed by an exception"
        case .allowedByPageException: return "allowed: a page-wide exception is in force"
        }
    }

    static func describe(_ rule: RuleReference) -> String {
        var text = "\(rule.listID) #\(rule.index)  \(rule.json)"
        for source in rule.sources {
            text += "\n      from \(source.upstream):\(source.line)  \(source.text)"
        }
        return text
    }
}
