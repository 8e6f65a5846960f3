import ContentBlockerEngine

/// The machine rendering of an answer, written straight to bytes. A page's answer carries every
/// hiding rule that applies with all its ABP lines (about 1.5 MB for a news site), and
/// `JSONEncoder` took ~70 ms for that, most of an answer's time; this writer gives the same bytes
/// (sorted keys, unescaped slashes, `JSONEncoder`'s escapes), which a test checks against it.
enum ExplanationJSON {
    /// `{"explanation": {…, rules with "sources": [{line, text, upstream}]}, "manifest_sha256",
    /// "provenance", "skipped": [{line, reason, text, upstream}]}`, keys sorted.
    static func render(_ answer: ExplainAnswer) -> String {
        String(decoding: bytes(answer), as: UTF8.self)
    }

    static func bytes(_ answer: ExplainAnswer) -> [UInt8] {
        var out = JSONBytes()
        out.object { object in
            object.key("explanation") { $0.explanation(answer.explanation) }
            object.key("manifest_sha256") { $0.string(answer.manifestSHA256) }
            object.key("provenance") { $0.string(answer.provenance) }
            object.key("skipped") {
                $0.array(answer.skipped) { $0.source(line: $1.line, reason: $1.reason, text: $1.text, upstream: $1.upstream) }
            }
        }
        return out.bytes
    }
}

private extension JSONBytes {
    mutating func explanation(_ explanation: Explanation) {
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
    mutating func source(line: Int, reason: String?, text: String, upstream: String) {
        object { object in
            object.key("line") { $0.integer(line) }
            if let reason { object.key("reason") { $0.string(reason) } }
            object.key("text") { $0.string(text) }
            object.key("upstream") { $0.string(upstream) }
        }
    }

    mutating func rule(_ rule: RuleReference) {
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

/// A minimal JSON writer: objects whose keys the caller gives in sorted order, arrays, strings
/// and integers, escaped as `JSONEncoder` escapes them.
struct JSONBytes {
    private(set) var bytes: [UInt8] = []
    /// Per open object: whether no key has been written yet (no comma before the next).
    private var openObjectIsEmpty: [Bool] = []

    init() { bytes.reserveCapacity(1 << 16) }

    mutating func object(_ body: (inout JSONBytes) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        openObjectIsEmpty.append(true)
        body(&self)
        openObjectIsEmpty.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    /// One member of the innermost open object.
    mutating func key(_ name: String, _ value: (inout JSONBytes) -> Void) {
        if openObjectIsEmpty[openObjectIsEmpty.count - 1] {
            openObjectIsEmpty[openObjectIsEmpty.count - 1] = false
        } else {
            bytes.append(UInt8(ascii: ","))
        }
        string(name)
        bytes.append(UInt8(ascii: ":"))
        value(&self)
    }

    mutating func array<Element>(_ elements: [Element], _ element: (inout JSONBytes, Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (position, value) in elements.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            element(&self, value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func integer(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in append(escaping: utf8) }
    }

    private mutating func append(escaping utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var plainStart = 0
        for position in 0..<utf8.count {
            let byte = utf8[position]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart..<position]))
            plainStart = position + 1
            bytes.append(0x5C)
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            default:
                bytes.append(UInt8(ascii: "u"))
                bytes.append(0x30)
                bytes.append(0x30)
                bytes.append(Self.hexDigit(byte >> 4))
                bytes.append(Self.hexDigit(byte & 0xF))
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart...]))
        bytes.append(UInt8(ascii: "\""))
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
