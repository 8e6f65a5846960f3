import Converter
import JSONBytes

/// Reads a published list's bytes into rules in one pass with the package's byte JSON reader
/// (`JSONCursor`): no document tree and no Foundation objects, which were about a quarter of a cold
/// explain. Each rule keeps its exact byte range in the list, so an answer quotes it as published.
enum RuleListReader {
    /// One list's rules, and for each the trigrams of its url-filter's required literals (what the
    /// engine's index chooses from), computed here from the compiling parse and dropped after indexing.
    struct List {
        var rules: [BlockerRule] = []
        /// Every rule's trigrams, sorted and distinct per rule, one rule after the other.
        var trigrams: [UInt32] = []
        /// Where each rule's trigrams end in `trigrams`.
        var trigramEnds: [Int] = []
    }

    static func rules(listID: String, json: [UInt8]) throws(RuleListError) -> List {
        do {
            return try json.withUnsafeBufferPointer { buffer in
                guard UTF8Validation.isValid(buffer) else {
                    throw RuleListError(
                        listID: listID, index: nil, reason: "not valid JSON: the list is not valid UTF-8")
                }
                return try JSONCursor.reading(buffer) { cursor in try read(&cursor, listID: listID, json: json) }
            }
        } catch let error as RuleListError {
            throw error
        } catch let error as JSONCursor.SyntaxError {
            throw RuleListError(
                listID: listID, index: nil, reason: "not valid JSON: \(error.message) at byte \(error.offset)")
        } catch {
            throw RuleListError(listID: listID, index: nil, reason: "not valid JSON: \(error)")
        }
    }

    private static func read(_ cursor: inout JSONCursor, listID: String, json: [UInt8]) throws -> List {
        guard cursor.peek() == UInt8(ascii: "[") else {
            try cursor.skipValue(depth: 0)
            throw RuleListError(listID: listID, index: nil, reason: "the top level is not an array")
        }
        var list = List()
        var literals: [[UInt8]] = []
        if try cursor.beginArray() {
            repeat {
                let index = list.rules.count
                guard cursor.peek() == UInt8(ascii: "{") else {
                    throw RuleListError(listID: listID, index: nil, reason: "every element must be a rule object")
                }
                let start = cursor.index
                let fields = try RuleFields.read(&cursor)
                list.rules.append(
                    try BlockerRule(
                        listID: listID, index: index, fields: fields, listJSON: json,
                        range: start..<cursor.index, requiredLiterals: &literals))
                appendTrigrams(of: literals, to: &list.trigrams)
                list.trigramEnds.append(list.trigrams.count)
            } while try cursor.next(closing: UInt8(ascii: "]"))
        }
        cursor.skipWhitespace()
        if !cursor.atEnd { throw cursor.fail("trailing bytes after the JSON value") }
        return list
    }

    /// The distinct trigrams of literals of at least 3 bytes, sorted.
    private static func appendTrigrams(of literals: [[UInt8]], to trigrams: inout [UInt32]) {
        let start = trigrams.count
        for literal in literals where literal.count >= 3 {
            for offset in 0...(literal.count - 3) {
                trigrams.append(ContentBlockerEngine.trigram(literal[offset], literal[offset + 1], literal[offset + 2]))
            }
        }
        guard trigrams.count - start > 1 else { return }
        trigrams[start...].sort()
        var kept = start + 1
        for index in (start + 1)..<trigrams.count where trigrams[index] != trigrams[kept - 1] {
            trigrams[kept] = trigrams[index]
            kept += 1
        }
        trigrams.removeSubrange(kept...)
    }
}

/// The members of one rule object the engine reads; the rest are skipped (after a syntax check).
/// A repeated key replaces the earlier one.
struct RuleFields {
    /// The trigger's string-array members, in the order their problems are reported.
    enum ArrayKey: Int, CaseIterable {
        case loadType, loadContext, resourceType, ifDomain, unlessDomain, ifTopURL, unlessTopURL, ifFrameURL,
            unlessFrameURL

        static let names: [StaticString] = [
            "load-type", "load-context", "resource-type", "if-domain", "unless-domain",
            "if-top-url", "unless-top-url", "if-frame-url", "unless-frame-url",
        ]
        var name: String { Self.names[rawValue].description }
    }

    /// A string-array member: absent, its strings, or present with another shape.
    enum Strings {
        case absent
        case strings([String])
        case wrongShape
    }

    var hasTrigger = false
    var hasAction = false
    /// `action.type`: nil when absent or not a string.
    var actionType: String?
    var selector: String?
    var urlFilter: String?
    var caseSensitive = false
    var arrays = [Strings](repeating: .absent, count: ArrayKey.allCases.count)

    static func read(_ cursor: inout JSONCursor) throws -> RuleFields {
        var fields = RuleFields()
        guard try cursor.beginObject() else { return fields }
        repeat {
            let key = try cursor.key()
            if ByteName.equals(key, "trigger") {
                (fields.urlFilter, fields.caseSensitive) = (nil, false)
                fields.arrays = RuleFields().arrays
                fields.hasTrigger = cursor.peek() == UInt8(ascii: "{")
                if fields.hasTrigger { try fields.readTrigger(&cursor) } else { try cursor.skipValue(depth: 2) }
            } else if ByteName.equals(key, "action") {
                (fields.actionType, fields.selector) = (nil, nil)
                fields.hasAction = cursor.peek() == UInt8(ascii: "{")
                if fields.hasAction { try fields.readAction(&cursor) } else { try cursor.skipValue(depth: 2) }
            } else {
                try cursor.skipValue(depth: 2)
            }
        } while try cursor.next(closing: UInt8(ascii: "}"))
        return fields
    }

    private mutating func readTrigger(_ cursor: inout JSONCursor) throws {
        guard try cursor.beginObject() else { return }
        repeat {
            let key = try cursor.key()
            if ByteName.equals(key, "url-filter") {
                urlFilter = try Self.string(&cursor)
            } else if ByteName.equals(key, "url-filter-is-case-sensitive") {
                caseSensitive = cursor.peek() == UInt8(ascii: "t")
                try cursor.skipValue(depth: 3)
            } else if let arrayKey = Self.arrayKey(key) {
                arrays[arrayKey.rawValue] = try Self.strings(&cursor)
            } else {
                try cursor.skipValue(depth: 3)
            }
        } while try cursor.next(closing: UInt8(ascii: "}"))
    }

    private mutating func readAction(_ cursor: inout JSONCursor) throws {
        guard try cursor.beginObject() else { return }
        repeat {
            let key = try cursor.key()
            if ByteName.equals(key, "type") {
                actionType = try Self.string(&cursor)
            } else if ByteName.equals(key, "selector") {
                selector = try Self.string(&cursor)
            } else {
                try cursor.skipValue(depth: 3)
            }
        } while try cursor.next(closing: UInt8(ascii: "}"))
    }

    private static func arrayKey(_ key: UnsafeBufferPointer<UInt8>) -> ArrayKey? {
        for candidate in ArrayKey.allCases where ByteName.equals(key, ArrayKey.names[candidate.rawValue]) {
            return candidate
        }
        return nil
    }

    /// A string value, or nil (skipped) for any other value.
    private static func string(_ cursor: inout JSONCursor) throws -> String? {
        guard cursor.peek() == UInt8(ascii: "\"") else {
            try cursor.skipValue(depth: 3)
            return nil
        }
        return String(decoding: try cursor.string(), as: UTF8.self)
    }

    private static func strings(_ cursor: inout JSONCursor) throws -> Strings {
        guard cursor.peek() == UInt8(ascii: "[") else {
            try cursor.skipValue(depth: 3)
            return .wrongShape
        }
        var values: [String] = []
        var wrongShape = false
        if try cursor.beginArray() {
            repeat {
                if cursor.peek() == UInt8(ascii: "\"") {
                    values.append(String(decoding: try cursor.string(), as: UTF8.self))
                } else {
                    wrongShape = true
                    try cursor.skipValue(depth: 4)
                }
            } while try cursor.next(closing: UInt8(ascii: "]"))
        }
        return wrongShape ? .wrongShape : .strings(values)
    }
}
