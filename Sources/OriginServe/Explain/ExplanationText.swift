import ContentBlockerEngine
import Foundation

/// The two renderings of an explanation: lines for a person, JSON for a machine.
package enum ExplanationText {
    /// Hiding rules listed in the human form; `--json` has them all.
    static let hidingRulesShown = 20
    /// Source lines shown per hiding rule (a generic rule joins dozens of selectors).
    static let sourcesShown = 3

    package static func human(_ answer: ExplainAnswer) -> String {
        let explanation = answer.explanation
        var lines = [
            "request   \(explanation.url)",
            "          \(explanation.resourceType.rawValue), \(explanation.loadContext.rawValue), \(explanation.loadType.rawValue)",
            "page      \(explanation.page)",
            "set       manifest sha256 \(answer.manifestSHA256.prefix(16))…",
            "decision  \(headline(explanation.verdict))",
        ]
        if answer.provenance != "complete" { lines.append("sources   \(answer.provenance)") }
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
            lines.append(
                "page-level exceptions in force (each cancels the earlier rules of its list on this page, hiding included):"
            )
            lines += explanation.pageExceptions.map { "  " + describe($0) }
        }
        let hiding = explanation.hidingSelectors
        lines.append("hiding on the page: \(hiding.count) rule(s)" + (hiding.isEmpty ? "" : ":"))
        for selector in hiding.prefix(hidingRulesShown) {
            lines.append("  \(selector.rule.listID) #\(selector.rule.index)  \(selector.selector.prefix(160))")
            lines += selector.rule.sources.prefix(sourcesShown).map {
                "      from \($0.upstream):\($0.line)  \($0.text)"
            }
            if selector.rule.sources.count > sourcesShown {
                lines.append("      … and \(selector.rule.sources.count - sourcesShown) more lines")
            }
        }
        if hiding.count > hidingRulesShown {
            lines.append("  … and \(hiding.count - hidingRulesShown) more (--json lists all)")
        }
        for skipped in answer.skipped {
            lines.append("skipped: \(skipped.reason): \(skipped.upstream):\(skipped.line): \(skipped.text)")
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

    package static func describe(_ rule: RuleReference) -> String {
        var text = "\(rule.listID) #\(rule.index)  \(rule.json)"
        for source in rule.sources {
            text += "\n      from \(source.upstream):\(source.line)  \(source.text)"
        }
        return text
    }
}
