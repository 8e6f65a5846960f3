/// What `LayoutInput` learns about one network rule: an exception (lists derive their exceptions), or the member it becomes.
enum NetworkAnalysis: Sendable {
    case exception
    case member(LayoutMember)
}

/// Everything a network rule's family and fresh sort key depend on besides the rule itself, so
/// that rules can be analysed independently (and concurrently).
struct FamilyLookup: Sendable {
    var exceptionHosts: HostRelationIndex
    var genericBlockPages: HostRelationIndex
    var genericBlockEverywhere: Bool
    var navigationAfterGuards: Bool
    var previousFamily: [StableKey: ListFamily]
    var pathListExists: Bool

    func analyse(_ rule: NetworkRule, index: Int) -> NetworkAnalysis {
        if rule.kind == .exception { return .exception }
        let pages = rule.pageCondition.ifDomain
        var family: ListFamily
        var volatility = Volatility.calm
        // Host blocks sort by their host's labels, last label first, so a site's hosts end up together.
        var sortHost: String?
        let anchoredHost = rule.anchorHost.flatMap { ExceptionScope.hasDot($0) ? $0 : nil }
        switch (rule.navigation, pages, anchoredHost) {
        case (.mustNotBeGuarded, nil, let host?), (.unaffected, nil, let host?):
            family = .networkHosts
            volatility = hostVolatility(host, rule.pageCondition)
            sortHost = host
        case (.mustNotBeGuarded, let pages?, let host?) where !concernsGenericBlock(pages),
            (.unaffected, let pages?, let host?) where !concernsGenericBlock(pages):
            // A host block limited to some pages: only exceptions on related hosts can cancel it,
            // so it belongs with the host blocks, not in the path list every exception edit changes.
            family = .networkHosts
            volatility = pages.count > 1 ? Volatility.volatile : hostVolatility(host, rule.pageCondition)
            sortHost = host
        case (.needsGuard, let pages?, let host?) where !concernsGenericBlock(pages):
            family = .networkHostPaths
            volatility = pages.count > 1 ? Volatility.volatile : hostVolatility(host, rule.pageCondition)
            sortHost = host
        case (.mustNotBeGuarded, let pages, _)
        where navigationAfterGuards && rule.carveOut == nil && !(pages.map(concernsGenericBlock) ?? false):
            // Placed after the guards of a path list, which carries every exception anyway:
            // a list of its own repeated them all and changed with each of them.
            family = .networkPaths
        case (.mustNotBeGuarded, _, _):
            family = .networkNavigation
        case (_, let pages?, _) where concernsGenericBlock(pages):
            family = .networkSites
            if pages.count > 1 { volatility = Volatility.volatile }
        case (_, _?, _):
            // Acts only on pages no `$genericblock` concerns, and the path lists carry every
            // exception anyway: a list of its own would repeat them all (and change with them).
            family = .networkPaths
        case (.needsGuard, nil, let host?):
            family = .networkHostPaths
            volatility = hostVolatility(host, rule.pageCondition)
            sortHost = host
        default:
            // Unanchored, or anchored to a bare label such as `||com/banners/`, which every
            // exception on a .com host could cancel.
            family = .networkPaths
        }
        let order = FreshOrder(
            volatility: volatility, churn: rule.churn, tail: sortHost.map { .reversedHost($0) } ?? .none)
        let key = StableKey(sourceID: rule.sourceID, key: rule.key)
        if family == .networkHostPaths, joinsPathList(rule, key) { family = .networkPaths }
        if family == .networkHosts || family == .networkHostPaths, volatility == Volatility.volatile,
            rule.navigation != .mustNotBeGuarded || (navigationAfterGuards && rule.carveOut == nil)
        {
            // A contested host block (an exception names its host, or its page list is edited in
            // place) changes with those exceptions, which the path list carries and changes with
            // on most days anyway: there it costs devices only itself, where a host list of its
            // own would be recompiled with every such edit, and repeat those exceptions.
            family = .networkPaths
        }
        return .member(LayoutMember(key: key, family: family, index: index, freshOrder: order))
    }

    private func concernsGenericBlock(_ pages: [String]) -> Bool {
        genericBlockEverywhere || pages.contains(where: genericBlockPages.relates(to:))
    }

    private func joinsPathList(_ rule: NetworkRule, _ key: StableKey) -> Bool {
        guard pathListExists else { return false }
        switch previousFamily[key] {
        case nil, .networkPaths?: return true
        default: return false
        }
    }

    private func hostVolatility(_ host: String, _ pages: NetworkRule.PageCondition) -> UInt8 {
        var excludesPages = false
        if case .except = pages { excludesPages = true }
        let contested = exceptionHosts.relates(to: host) || excludesPages
        return contested ? Volatility.volatile : Volatility.calm
    }
}

/// First byte of a fresh layout's sort key: rules likely to change soon sort first, so they share
/// the family's first lists and leave the others untouched for longer. On the 2020-10 dailies most
/// in-place edits hit rules with domain lists (a site is added to `a.com,b.com##.ad` or to
/// `$domain=`), and exceptions are edited or added next to blocks on the hosts they already
/// concern: those blocks are "contested".
enum Volatility {
    static let volatile: UInt8 = 0
    static let calm: UInt8 = 1
}
