import Converter

/// Where a rule sits in the published set, and its JSON. `sources` is the hook for ABP provenance:
/// a `RuleProvenance` fills it with the upstream lines the converter made the rule from.
public struct RuleReference: Sendable, Equatable, Codable {
    public var listID: String
    public var index: Int
    public var action: ActionType
    public var json: String
    public var sources: [SourceLine] = []

    enum CodingKeys: String, CodingKey {
        case listID = "list"
        case index, action
        case json = "rule"
        case sources
    }
}

/// Maps a rule (list id, index in the list) to the ABP lines it came from, as the converter's
/// provenance file records them. `NoProvenance` answers nothing, for a set published without one.
public protocol RuleProvenance: Sendable {
    func sourceLines(listID: String, index: Int) -> [SourceLine]
}

public struct NoProvenance: RuleProvenance {
    public init() {}
    public func sourceLines(listID: String, index: Int) -> [SourceLine] { [] }
}

/// What WebKit decides for a request.
public enum Verdict: String, Sendable, Codable {
    /// A block rule matched and no later exception in its list cancelled it.
    case blocked
    /// No block rule matched.
    case allowedNoRule = "allowed-no-rule"
    /// Block rules matched, and an exception in the same list cancelled each.
    case allowedByException = "allowed-by-exception"
    /// As above, and a page-wide exception (url-filter `.*` on this page: `$document` and the like) was among them.
    case allowedByPageException = "allowed-by-page-exception"
}

/// An exception and the earlier matches of its list it cancelled.
public struct Cancellation: Sendable, Equatable, Codable {
    public var exception: RuleReference
    public var cancelled: [RuleReference]
}

/// A css-display-none selector in force on the page, and the rule it comes from.
public struct HidingSelector: Sendable, Equatable, Codable {
    public var selector: String
    public var rule: RuleReference
}

/// The full answer for one request: the decision, the rules that made it, and what applies to the page.
public struct Explanation: Sendable, Equatable, Codable {
    public var url: String
    public var page: String
    public var resourceType: ResourceType
    public var loadContext: LoadContext
    public var loadType: LoadType
    public var verdict: Verdict
    /// Block rules still in force (non-empty exactly when blocked).
    public var blockingRules: [RuleReference]
    /// Exceptions that cancelled a block rule matching this request.
    public var exceptions: [Cancellation]
    /// Other actions in force for this load: block-cookies, make-https, notify, redirect, modify-headers.
    public var otherActions: [RuleReference]
    /// Page-wide exceptions that match the page's own document load: the page-level exceptions in
    /// force (they cancel hiding, and every earlier rule of their list, on the page).
    public var pageExceptions: [RuleReference]
    /// The selectors hidden on the page, in list order.
    public var hidingSelectors: [HidingSelector]

    public var blocked: Bool { verdict == .blocked }

    /// Every rule the answer names, for provenance lookups; a list's site-exception rule with the
    /// lines that concern the page on `pageHost` (see `SiteExceptionLines`).
    mutating func attachSources(_ provenance: any RuleProvenance, pageHost: String) {
        func fill(_ reference: inout RuleReference) {
            let lines = provenance.sourceLines(listID: reference.listID, index: reference.index)
            reference.sources = SiteExceptionLines.concerning(pageHost, json: reference.json, lines: lines)
        }
        for i in blockingRules.indices { fill(&blockingRules[i]) }
        for i in exceptions.indices {
            fill(&exceptions[i].exception)
            for j in exceptions[i].cancelled.indices { fill(&exceptions[i].cancelled[j]) }
        }
        for i in otherActions.indices { fill(&otherActions[i]) }
        for i in pageExceptions.indices { fill(&pageExceptions[i]) }
        for i in hidingSelectors.indices { fill(&hidingSelectors[i].rule) }
    }
}
