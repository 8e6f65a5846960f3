import ContentBlockerEngine
import JSONBytes

/// The machine rendering of an answer, written straight to bytes. A page's answer carries every
/// hiding rule that applies with all its ABP lines (about 1.5 MB for a news site), and
/// `JSONEncoder` took ~70 ms for that, most of an answer's time. The layout is `JSONEncoder`'s
/// with sorted keys and unescaped slashes (a test checks it against it); strings use the package's
/// one escaping (`JSONWriter`), which differs from `JSONEncoder`'s only in spelling: `\u0008`,
/// `\u000c` and `\u007f` where it writes `\b`, `\f` and a raw DEL, the same characters to a parser.
package enum ExplanationJSON {
    /// `{"explanation": {…, rules with "sources": [{line, text, upstream}]}, "manifest_sha256",
    /// "provenance", "skipped": [{line, reason, text, upstream}]}`, keys sorted.
    package static func render(_ answer: ExplainAnswer) -> String {
        String(decoding: bytes(answer), as: UTF8.self)
    }

    package static func bytes(_ answer: ExplainAnswer) -> [UInt8] {
        var out = JSONDocument(reservingCapacity: 1 << 16)
        out.object { object in
            object.key("explanation") { $0.explanation(answer.explanation) }
            object.key("manifest_sha256") { $0.string(answer.manifestSHA256) }
            object.key("provenance") { $0.string(answer.provenance) }
            object.key("skipped") {
                $0.array(answer.skipped) {
                    $0.source(line: $1.line, reason: $1.reason, text: $1.text, upstream: $1.upstream)
                }
            }
        }
        return out.bytes
    }
}

extension JSONDocument {
    fileprivate mutating func explanation(_ explanation: Explanation) {
        object { object in
            object.key("blockingRules") { $0.array(explanation.blockingRules) { $0.rule($1) } }
            object.key("exceptions") {
                $0.array(explanation.exceptions) { out, cancellation in
                    out.object { object in
                        object.key("cancelled") { $0.array(cancellation.cancelled) { $0.rule($1) } }
                        object.key("exception") { $0.rule(cancellation.exception) }
                    }
                }
            }
            object.key("hidingSelectors") {
                $0.array(explanation.hidingSelectors) { out, hiding in
                    out.object { object in
                        object.key("rule") { $0.rule(hiding.rule) }
                        object.key("selector") { $0.string(hiding.selector) }
                    }
                }
            }
            object.key("loadContext") { $0.string(explanation.loadContext.rawValue) }
            object.key("loadType") { $0.string(explanation.loadType.rawValue) }
            object.key("otherActions") { $0.array(explanation.otherActions) { $0.rule($1) } }
            object.key("page") { $0.string(explanation.page) }
            object.key("pageExceptions") { $0.array(explanation.pageExceptions) { $0.rule($1) } }
            object.key("resourceType") { $0.string(explanation.resourceType.rawValue) }
            object.key("url") { $0.string(explanation.url) }
            object.key("verdict") { $0.string(explanation.verdict.rawValue) }
        }
    }

    /// An ABP line: a rule's source, or (with its `reason`) a skipped line.
    fileprivate mutating func source(line: Int, reason: String?, text: String, upstream: String) {
        object { object in
            object.key("line") { $0.integer(line) }
            if let reason { object.key("reason") { $0.string(reason) } }
            object.key("text") { $0.string(text) }
            object.key("upstream") { $0.string(upstream) }
        }
    }

    fileprivate mutating func rule(_ rule: RuleReference) {
        object { object in
            object.key("action") { $0.string(rule.action.rawValue) }
            object.key("index") { $0.integer(rule.index) }
            object.key("list") { $0.string(rule.listID) }
            object.key("rule") { $0.string(rule.json) }
            object.key("sources") {
                $0.array(rule.sources) { $0.source(line: $1.line, reason: nil, text: $1.text, upstream: $1.upstream) }
            }
        }
    }
}
