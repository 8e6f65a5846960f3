import ContentBlockerEngine
import Foundation

/// `GET /explain?url=…&page=…&type=…`, checked before any work: the parameters percent-decoded
/// (`+` is a space, as an HTML form sends it), each refusal a status and a reason that names no
/// input bytes back.
package struct ExplainQuery: Equatable {
    /// Longest `url` or `page` accepted, in bytes after decoding: more is not a URL a browser sends.
    package static let maximumURLBytes = 2_048

    package struct Refusal: Error, Equatable {
        package var status: Int
        package var reason: String
    }

    package var url: String
    package var page: String?
    package var type: ABPRequestType
    /// The set to explain against (`set=<name>`); nil: the default set.
    package var set: String? = nil

    /// Parses the query part of a request target (`/explain?…`).
    package static func parse(target: UnsafeBufferPointer<UInt8>) throws(Refusal) -> ExplainQuery {
        var fields: [String: String] = [:]
        let target = Array(target)
        if let mark = target.firstIndex(of: UInt8(ascii: "?")) {
            for pair in target[(mark + 1)...].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
                let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : []) else {
                    throw Refusal(status: 400, reason: "the query is not valid percent-encoded UTF-8")
                }
                // The first of a repeated parameter counts.
                if fields[name] == nil { fields[name] = value }
            }
        }
        guard let url = fields["url"], !url.isEmpty else {
            throw Refusal(status: 400, reason: "give the request to explain: /explain?url=https://…[&page=https://…][&type=\(typeNames)]")
        }
        let page = fields["page"].flatMap { $0.isEmpty ? nil : $0 }
        for (label, value) in [("url", url), ("page", page)] {
            guard let value else { continue }
            guard value.utf8.count <= maximumURLBytes else {
                throw Refusal(status: 414, reason: "the \(label) parameter is \(value.utf8.count) bytes long; the limit is \(maximumURLBytes)")
            }
            let lowered = value.prefix(8).lowercased()
            guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
                throw Refusal(status: 400, reason: "the \(label) parameter must be an http:// or https:// URL")
            }
        }
        var type = ABPRequestType.other
        if let name = fields["type"], !name.isEmpty {
            guard let known = ABPRequestType(rawValue: name) else {
                throw Refusal(status: 400, reason: "unknown type; use one of \(typeNames)")
            }
            type = known
        }
        var query = ExplainQuery(url: url, page: page, type: type)
        if let set = fields["set"], !set.isEmpty {
            guard set.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d }) else {
                throw Refusal(status: 400, reason: "the set parameter is a set name from /sets/ (lowercase letters, digits and '-')")
            }
            query.set = set
        }
        return query
    }

    /// The engine's request, or a 400 when the URL does not parse as one.
    package func request() throws(Refusal) -> BlockerRequest {
        do {
            return try BlockerRequest(url: url, source: page, type: type)
        } catch {
            throw Refusal(status: 400, reason: "not a URL the engine can match: \(error.description)")
        }
    }

    static let typeNames = ABPRequestType.allCases.map(\.rawValue).joined(separator: ", ")

    /// Percent-decodes a query component (`+` is a space); nil for a bad escape or bytes that are not UTF-8.
    package static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else { return nil }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
