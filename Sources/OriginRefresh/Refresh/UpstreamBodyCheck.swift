import Foundation
import OriginStore

/// The checks a fetched body must pass before it replaces the last good copy: it decodes, it is a
/// filter list (starts with the upstream's required header), and it was not cut short (it keeps at
/// least `minimumRuleShare` of the last good copy's rules).
package struct UpstreamBodyCheck: Sendable {
    package enum Rejection: Error, CustomStringConvertible, Equatable {
        case empty
        case undecodable(String)
        case missingHeader(expected: String, found: String)
        case tooFewRules(found: Int, baseline: Int, share: Double)

        package var description: String {
            switch self {
            case .empty:
                return "the body is empty"
            case .undecodable(let reason):
                return "the body does not decode (\(reason))"
            case .missingHeader(let expected, let found):
                return
                    "the body does not start with \"\(expected)\" (starts with \"\(found)\"); not a filter list, or an error page"
            case .tooFewRules(let found, let baseline, let share):
                return
                    "the body has \(found) rules, less than \(Int(share * 100))% of the last good copy's \(baseline); truncated upstream? Lower refresh.minimumRuleShare if the drop is real"
            }
        }
    }

    package var requiredHeader: String
    package var minimumRuleShare: Double
    package var maxBodyBytes: Int

    /// Returns the text bytes to use (inflated when the upstream sent raw gzip) and its rule count.
    package func check(_ body: [UInt8], baselineRules: Int?) throws(Rejection) -> (text: [UInt8], rules: Int) {
        guard !body.isEmpty else { throw .empty }
        var text = body
        if body.count >= 2, body[0] == 0x1f, body[1] == 0x8b {
            // A gzip file served without Content-Encoding: libcurl left it compressed.
            do {
                text = try Gzip.decompress(body, limit: maxBodyBytes)
            } catch {
                throw .undecodable("\(error)")
            }
        }
        let start = text.starts(with: [0xef, 0xbb, 0xbf]) ? 3 : 0
        guard String(validating: text[start...], as: UTF8.self) != nil else { throw .undecodable("not UTF-8 text") }
        guard text[start...].starts(with: Array(requiredHeader.utf8)) else {
            let prefix = String(decoding: text[start..<min(text.count, start + 40)], as: UTF8.self)
                .replacingOccurrences(of: "\n", with: "\\n")
            throw .missingHeader(expected: requiredHeader, found: prefix)
        }
        let rules = Self.countRules(Array(text[start...]))
        if let baselineRules, Double(rules) < Double(baselineRules) * minimumRuleShare {
            throw .tooFewRules(found: rules, baseline: baselineRules, share: minimumRuleShare)
        }
        if rules == 0 { throw .tooFewRules(found: 0, baseline: baselineRules ?? 0, share: minimumRuleShare) }
        return (text, rules)
    }

    /// Filter lines: not blank, not a `!` comment, not a `[...]` header.
    static func countRules(_ bytes: [UInt8]) -> Int {
        var count = 0
        var lineStart = true
        var counted = false
        for byte in bytes {
            if byte == 0x0a || byte == 0x0d {
                lineStart = true
                counted = false
                continue
            }
            if lineStart {
                lineStart = false
                if byte == UInt8(ascii: "!") || byte == UInt8(ascii: "[") || byte == 0x20 || byte == 0x09 {
                    counted = true
                    continue
                }
            }
            if !counted {
                counted = true
                count += 1
            }
        }
        return count
    }
}
