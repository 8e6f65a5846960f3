import ContentBlockerEngine
import Foundation
import HTTPServerCore

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
        let fields = try queryFields(target: target)
        guard let url = fields["url"], !url.isEmpty else {
            throw Refusal(
                status: 400,
                reason: "give the request to explain: /explain?url=https://…[&page=https://…][&type=\(typeNames)]")
        }
        let page = fields["page"].flatMap { $0.isEmpty ? nil : $0 }
        for (label, value) in [("url", url), ("page", page)] {
            guard let value else { continue }
            guard value.utf8.count <= maximumURLBytes else {
                throw Refusal(
                    status: 414,
                    reason: "the \(label) parameter is \(value.utf8.count) bytes long; the limit is \(maximumURLBytes)")
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
                throw Refusal(
                    status: 400,
                    reason: "the set parameter is a set name from /sets/ (lowercase letters, digits and '-')")
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

    /// The query's parameters, percent-decoded; the first of a repeated parameter counts.
    static func queryFields(target: UnsafeBufferPointer<UInt8>) throws(Refusal) -> [String: String] {
        var fields: [String: String] = [:]
        let target = Array(target)
        guard let mark = target.firstIndex(of: UInt8(ascii: "?")) else { return fields }
        for pair in target[(mark + 1)...].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : []) else {
                throw Refusal(status: 400, reason: "the query is not valid percent-encoded UTF-8")
            }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    /// Percent-decodes a query component (`+` is a space); nil for a bad escape or bytes that are not UTF-8.
    package static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        PercentDecoding.decode(bytes, plus: .space).flatMap { String(validating: $0, as: UTF8.self) }
    }
}
