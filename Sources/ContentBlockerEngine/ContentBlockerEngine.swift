import Converter
import Foundation
import PublicSuffix
import URLFilterGrammar

/// WebKit's content-blocker decision over a set of rule lists, in manifest order.
///
/// Semantics (WebKit ContentExtensions; checked against a real WebKitGTK WebView by
/// `DecisionEngineWebViewTests`): every list decides on its own; within a list the matching rules
/// apply in order and `ignore-previous-rules` cancels every earlier match of that list only; a request
/// is blocked when any list still has a block in force. The hiding selectors of a page are the
/// css-display-none rules in force for the page's own document load.
///
/// Rules are indexed by the rarest trigram of a literal their url-filter requires, so a request only
/// runs the filters of rules that could match it. Pure: no files, sockets or clock.
public struct ContentBlockerEngine: Sendable {
    /// Every rule of every list, in list order then index order (the ordinal is the position here).
    public let rules: [BlockerRule]
    public let listIDs: [String]
    let registrableDomains: any RegistrableDomainProvider
    private let byTrigram: [UInt32: [Int32]]
    private let unindexed: [Int32]

    /// How candidate rules are found: by trigram (the default), or every rule (a latency baseline).
    public enum Indexing: Sendable { case trigram, none }

    /// `lists`: (list id, the list's JSON bytes) in manifest order.
    public init(
        lists: [(id: String, json: [UInt8])], registrableDomains: any RegistrableDomainProvider,
        indexing: Indexing = .trigram
    ) throws(RuleListError) {
        // Lists are read on every core (each rule's url-filter is compiled here), then joined in manifest order.
        let read = Parallel.map(lists.count) { index in
            Result { () throws(RuleListError) in
                try RuleListReader.rules(listID: lists[index].id, json: lists[index].json)
            }
        }
        var parts: [RuleListReader.List] = []
        for result in read { parts.append(try result.get()) }
        var rules: [BlockerRule] = []
        rules.reserveCapacity(parts.reduce(0) { $0 + $1.rules.count })
        for part in parts { rules += part.rules }
        self.rules = rules
        self.listIDs = lists.map(\.id)
        self.registrableDomains = registrableDomains
        switch indexing {
        case .trigram: (byTrigram, unindexed) = Self.index(parts)
        case .none: (byTrigram, unindexed) = ([:], Array(0..<Int32(rules.count)))
        }
    }

    /// The decision alone (the WebView checks compare this).
    public func isBlocked(_ request: BlockerRequest) -> Bool {
        outcomes(for: request).contains { !$0.inForce.filter { $0.action == .block }.isEmpty }
    }

    /// The decision with the rules that made it, the page's exceptions and its hiding selectors.
    public func explain(_ request: BlockerRequest, provenance: any RuleProvenance = NoProvenance()) -> Explanation {
        let outcomes = outcomes(for: request)
        let blocking = outcomes.flatMap { $0.inForce.filter { $0.action == .block } }
        let deciding = outcomes.flatMap { outcome in
            outcome.cancellations.filter { $0.cancelled.contains { $0.action == .block } }
        }
        let verdict: Verdict
        if !blocking.isEmpty {
            verdict = .blocked
        } else if deciding.isEmpty {
            verdict = .allowedNoRule
        } else {
            verdict = deciding.contains { $0.exception.isPageWide } ? .allowedByPageException : .allowedByException
        }
        let pageLoad = request.pageDocumentLoad
        let pageOutcomes = request == pageLoad ? outcomes : self.outcomes(for: pageLoad)
        let hiding = pageOutcomes.flatMap { $0.inForce.filter { $0.action == .cssDisplayNone } }
        var explanation = Explanation(
            url: request.url.text, page: request.page.text, resourceType: request.resourceType,
            loadContext: request.loadContext,
            loadType: loadType(of: request), verdict: verdict,
            blockingRules: blocking.map(\.reference),
            exceptions: deciding.map {
                Cancellation(
                    exception: $0.exception.reference,
                    cancelled: $0.cancelled.filter { $0.action == .block }.map(\.reference))
            },
            otherActions: outcomes.flatMap {
                $0.inForce.filter { ![.block, .cssDisplayNone, .ignorePreviousRules].contains($0.action) }
            }.map(\.reference),
            pageExceptions: pageOutcomes.flatMap {
                $0.cancellations.map(\.exception).filter(\.isPageWide).map(\.reference)
            },
            hidingSelectors: hiding.map { HidingSelector(selector: $0.selector ?? "", rule: $0.reference) })
        explanation.attachSources(provenance, pageHost: request.page.host)
        return explanation
    }

    public func loadType(of request: BlockerRequest) -> LoadType {
        if request.url.host == request.page.host { return .firstParty }
        return registrableDomains.registrableDomain(of: request.url.host)
            == registrableDomains.registrableDomain(of: request.page.host)
            ? .firstParty : .thirdParty
    }

    /// One list's matches for a load: what is still in force, and each exception with what it cancelled.
    struct ListOutcome {
        var inForce: [BlockerRule] = []
        var cancellations: [(exception: BlockerRule, cancelled: [BlockerRule])] = []
    }

    func outcomes(for request: BlockerRequest) -> [ListOutcome] {
        let loadType = loadType(of: request)
        var outcomes: [ListOutcome] = []
        var currentList: String?
        for ordinal in candidates(for: request.url.bytes) {
            let rule = rules[Int(ordinal)]
            guard rule.matches(request, loadType: loadType) else { continue }
            if rule.listID != currentList {
                outcomes.append(ListOutcome())
                currentList = rule.listID
            }
            if rule.action == .ignorePreviousRules {
                outcomes[outcomes.count - 1].cancellations.append((rule, outcomes[outcomes.count - 1].inForce))
                outcomes[outcomes.count - 1].inForce = []
            } else {
                outcomes[outcomes.count - 1].inForce.append(rule)
            }
        }
        return outcomes
    }

    /// Ordinals of the rules whose indexed trigram occurs in the URL, plus the unindexed ones, in order.
    func candidates(for url: [UInt8]) -> [Int32] {
        var found = unindexed
        if url.count >= 3 {
            var seen = Set<UInt32>()
            for start in 0...(url.count - 3) {
                let key = Self.trigram(url[start], url[start + 1], url[start + 2])
                guard seen.insert(key).inserted, let bucket = byTrigram[key] else { continue }
                found += bucket
            }
        }
        found.sort()
        return found
    }

    static func trigram(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt32 {
        UInt32(URLFilterGrammar.lowercase(a)) << 16 | UInt32(URLFilterGrammar.lowercase(b)) << 8
            | UInt32(URLFilterGrammar.lowercase(c))
    }

    /// Each rule under the trigram of its required literals that the fewest rules have (ties: the
    /// smaller trigram), or unindexed when it has none.
    private static func index(_ lists: [RuleListReader.List]) -> ([UInt32: [Int32]], [Int32]) {
        var counts: [UInt32: Int] = [:]
        for list in lists {
            for gram in list.trigrams { counts[gram, default: 0] += 1 }
        }
        var byTrigram: [UInt32: [Int32]] = [:]
        var unindexed: [Int32] = []
        var ordinal: Int32 = 0
        for list in lists {
            var start = 0
            for end in list.trigramEnds {
                defer {
                    start = end
                    ordinal += 1
                }
                guard start < end else {
                    unindexed.append(ordinal)
                    continue
                }
                var rarest = list.trigrams[start]
                var fewest = counts[rarest]!
                for gram in list.trigrams[(start + 1)..<end] {
                    let count = counts[gram]!
                    if (count, gram) < (fewest, rarest) { (rarest, fewest) = (gram, count) }
                }
                byTrigram[rarest, default: []].append(ordinal)
            }
        }
        return (byTrigram, unindexed)
    }
}
