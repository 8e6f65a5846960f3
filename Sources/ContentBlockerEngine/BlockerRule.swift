import Foundation

/// The action of a rule, as WebKit names it.
public enum ActionType: String, Sendable, Codable, CaseIterable {
    case block
    case blockCookies = "block-cookies"
    case cssDisplayNone = "css-display-none"
    case ignorePreviousRules = "ignore-previous-rules"
    case makeHTTPS = "make-https"
    case notify, redirect
    case modifyHeaders = "modify-headers"
}

/// A `*`-aware domain condition entry: `*example.com` also matches subdomains.
struct DomainPattern: Sendable {
    var domain: String
    var includesSubdomains: Bool

    init(_ value: String) {
        includesSubdomains = value.hasPrefix("*")
        var domain = includesSubdomains ? String(value.dropFirst()) : value
        if includesSubdomains, domain.hasPrefix(".") { domain.removeFirst() }
        self.domain = domain
    }

    func matches(_ host: String) -> Bool {
        if host == domain { return true }
        return includesSubdomains && host.hasSuffix(domain) && host.utf8.count > domain.utf8.count
            && host.utf8[host.utf8.index(host.utf8.endIndex, offsetBy: -domain.utf8.count - 1)] == UInt8(ascii: ".")
    }
}

/// The condition a trigger may carry: at most one of these (WebKit refuses two).
enum PageCondition: Sendable {
    case ifDomain([DomainPattern])
    case unlessDomain([DomainPattern])
    case ifTopURL([URLFilterRegex])
    case unlessTopURL([URLFilterRegex])
    /// `if-frame-url` / `unless-frame-url`: the frame is the top frame in this request model.
    case ifFrameURL([URLFilterRegex])
    case unlessFrameURL([URLFilterRegex])

    func holds(page: NormalizedURL) -> Bool {
        switch self {
        case .ifDomain(let patterns): return patterns.contains { $0.matches(page.host) }
        case .unlessDomain(let patterns): return !patterns.contains { $0.matches(page.host) }
        case .ifTopURL(let filters), .ifFrameURL(let filters): return filters.contains { $0.matches(page.bytes) }
        case .unlessTopURL(let filters), .unlessFrameURL(let filters):
            return !filters.contains { $0.matches(page.bytes) }
        }
    }
}

/// One rule of a WebKit list, parsed for matching, with its position and its JSON text.
public struct BlockerRule: Sendable {
    public let listID: String
    public let index: Int
    public let action: ActionType
    /// The css-display-none selector.
    public let selector: String?
    /// The rule's own JSON, byte for byte as the list holds it.
    public var json: String { String(decoding: listJSON[jsonRange], as: UTF8.self) }
    /// The whole list's bytes, one storage shared by its rules (and, in the server, with the bytes
    /// it serves), and this rule's range in it: a string per rule cost more than the list itself.
    private let listJSON: [UInt8]
    private let jsonRange: Range<Int>
    let filter: URLFilterRegex
    let resourceTypes: UInt16?
    let loadTypes: Set<LoadType>?
    let loadContexts: Set<LoadContext>?
    let condition: PageCondition?

    /// - Parameter requiredLiterals: set to the url-filter's `requiredLiterals` (for the engine's index).
    init(
        listID: String, index: Int, fields: RuleFields, listJSON: [UInt8], range: Range<Int>,
        requiredLiterals: inout [[UInt8]]
    ) throws(RuleListError) {
        self.listID = listID
        self.index = index
        self.listJSON = listJSON
        jsonRange = range
        func fail(_ reason: String) -> RuleListError { RuleListError(listID: listID, index: index, reason: reason) }
        guard fields.hasTrigger, fields.hasAction else { throw fail("a rule needs a trigger and an action object") }
        guard let typeName = fields.actionType, let action = ActionType(rawValue: typeName) else {
            throw fail("unknown action type \(fields.actionType ?? "none")")
        }
        self.action = action
        selector = fields.selector
        guard let pattern = fields.urlFilter else { throw fail("a trigger needs a url-filter string") }
        let caseSensitive = fields.caseSensitive
        do {
            filter = try URLFilterRegex(pattern, caseSensitive: caseSensitive, requiredLiterals: &requiredLiterals)
        } catch {
            throw fail(error.description)
        }
        func strings(_ key: RuleFields.ArrayKey) throws(RuleListError) -> [String]? {
            switch fields.arrays[key.rawValue] {
            case .absent: return nil
            case .strings(let values): return values
            case .wrongShape: throw fail("\(key.name) must be an array of strings")
            }
        }
        /// A trigger flags array as a set; nil when absent or empty (an empty array restricts nothing).
        func flags<Flag: RawRepresentable & Hashable>(_ key: RuleFields.ArrayKey, as _: Flag.Type) throws(RuleListError)
            -> Set<Flag>? where Flag.RawValue == String
        {
            guard let names = try strings(key), !names.isEmpty else { return nil }
            var found = Set<Flag>()
            for name in names {
                guard let flag = Flag(rawValue: name) else { throw fail("unknown \(key.name) \(name)") }
                found.insert(flag)
            }
            return found
        }
        loadTypes = try flags(.loadType, as: LoadType.self)
        loadContexts = try flags(.loadContext, as: LoadContext.self)
        resourceTypes = try flags(.resourceType, as: ResourceType.self).map { $0.reduce(0) { $0 | $1.bit } }
        var conditions: [PageCondition] = []
        func regexes(_ values: [String]) throws(RuleListError) -> [URLFilterRegex] {
            var out: [URLFilterRegex] = []
            for value in values {
                do { out.append(try URLFilterRegex(value, caseSensitive: caseSensitive)) } catch {
                    throw fail(error.description)
                }
            }
            return out
        }
        if let values = try strings(.ifDomain) { conditions.append(.ifDomain(values.map(DomainPattern.init))) }
        if let values = try strings(.unlessDomain) { conditions.append(.unlessDomain(values.map(DomainPattern.init))) }
        if let values = try strings(.ifTopURL) { conditions.append(.ifTopURL(try regexes(values))) }
        if let values = try strings(.unlessTopURL) { conditions.append(.unlessTopURL(try regexes(values))) }
        if let values = try strings(.ifFrameURL) { conditions.append(.ifFrameURL(try regexes(values))) }
        if let values = try strings(.unlessFrameURL) { conditions.append(.unlessFrameURL(try regexes(values))) }
        guard conditions.count <= 1 else { throw fail("a trigger cannot have more than one condition") }
        condition = conditions.first
    }

    /// Whether the trigger fires for `request`; `loadType` is computed once per request by the engine.
    func matches(_ request: BlockerRequest, loadType: LoadType) -> Bool {
        if let resourceTypes, resourceTypes & request.resourceType.bit == 0 { return false }
        if let loadContexts, !loadContexts.contains(request.loadContext) { return false }
        if let loadTypes, !loadTypes.contains(loadType) { return false }
        if let condition, !condition.holds(page: request.page) { return false }
        return filter.matches(request.url.bytes)
    }

    /// An exception for whole pages (`$document`, `$elemhide`, `$generichide`): its url-filter matches
    /// every URL (`.*`) and a page condition names the pages, so there it cancels everything before it.
    public var isPageWide: Bool { action == .ignorePreviousRules && condition != nil && filter.matches([]) }

    public var reference: RuleReference {
        RuleReference(listID: listID, index: index, action: action, json: json)
    }
}

/// A rule list WebKit would refuse, or one the engine cannot read.
public struct RuleListError: Error, Equatable, CustomStringConvertible, Sendable {
    public var listID: String
    /// The rule's index, or nil when the list as a whole is bad.
    public var index: Int?
    public var reason: String
    public var description: String {
        index.map { "list \(listID), rule \($0): \(reason)" } ?? "list \(listID): \(reason)"
    }
}
