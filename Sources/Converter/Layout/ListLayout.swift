/// One list as layout built it: rule objects in the order WebKit must see them.
struct LaidOutList: Sendable, Equatable {
    var id: String
    var family: ListFamily
    var rules: [[UInt8]]
    /// Last run's bytes, published again because today's list only lacks removed rules (see `DeferredRemoval`).
    var kept: (bytes: [UInt8], rules: Int)?
    /// Runs in a row the list has kept old bytes.
    var deferredRuns = 0

    static func == (lhs: LaidOutList, rhs: LaidOutList) -> Bool {
        lhs.id == rhs.id && lhs.family == rhs.family && lhs.rules == rhs.rules && lhs.kept?.bytes == rhs.kept?.bytes
            && lhs.deferredRuns == rhs.deferredRuns
    }

    /// The JSON bytes to publish.
    var json: [UInt8] { kept?.bytes ?? JSONText.array(of: rules) }
    var ruleCount: Int { kept?.rules ?? rules.count }
}

/// Places converted rules into at most `maxLists` lists of at most `chunkSize` rules each, correct
/// (every exception after the blocks it can cancel, `$important` after the exceptions, then site
/// exceptions, then the navigation guards in every list holding a `.needsGuard` rule, and no
/// `.mustNotBeGuarded` rule in such a list) and
/// stable from day to day (see `FamilyPlacer`).
///
/// With a usable previous state, every family is placed incrementally; if the result breaks a
/// limit (a list too long, too many lists) or there is no state, a fresh layout is made instead.
/// The same rules and the same previous state always give the same lists and state.
struct ListLayout: Sendable {
    /// What a layout produced.
    struct Result: Sendable {
        var lists: [LaidOutList]
        var state: LayoutState
        /// Whether history was ignored (first run, changed knobs, or a limit forced a rebuild).
        var isFresh: Bool
        /// What layout worked from (a member for each of 160,000 rules and selectors), handed over
        /// so the caller decides when and where it is freed.
        var input: LayoutInput?
    }

    /// WebKit refuses lists longer than this (measured: 150,000 compiles, 150,001 fails).
    static let webKitRuleLimit = 150_000
    /// A fresh layout does not split a family into stable lists of fewer JSON bytes than this:
    /// every list costs each page load a lookup, and tiny lists save little when they change.
    static let minimumStableListBytes = 150_000

    var configuration: ConverterConfiguration

    /// - Parameters:
    ///   - previousLists: last run's published bytes by list id, for `DeferredRemoval`; may be empty.
    func layOut(_ rules: ConvertedRules, previous: LayoutState?, previousLists: [String: [UInt8]] = [:]) throws -> Result {
        let chunkSize = min(configuration.chunkSize, ListLayout.webKitRuleLimit)
        if let previous, previous.chunkSize == configuration.chunkSize, previous.maxLists == configuration.maxLists,
           previous.selectorsPerRule == configuration.genericSelectorsPerRule {
            let input = LayoutInput(rules, previous: previous)
            var placed = ListFamily.allCases.flatMap { family in
                placer(family, input).incremental(previous: previous.lists.filter { $0.family == family })
            }
            var built = build(placed, input)
            if violation(built, chunkSize: chunkSize) == nil {
                deferRemovals(&built, previous: previous, previousLists: previousLists)
                if configuration.promotesRecentIntoChangedLists {
                    promoteIntoChangedLists(&placed, &built, input, previous: previous, previousLists: previousLists)
                }
                if violation(built, chunkSize: chunkSize) == nil {
                    return Result(lists: built, state: state(placed, built, input), isFresh: false, input: input)
                }
            }
        }
        let input = LayoutInput(rules)
        let placed = try freshPlacement(input)
        let built = build(placed, input)
        if let problem = violation(built, chunkSize: chunkSize) { throw ConversionError.layoutImpossible(problem) }
        return Result(lists: built, state: state(placed, built, input), isFresh: true, input: input)
    }

    // MARK: placement

    /// Most members a list of `family` may hold so that, with every exception and site exception
    /// it may have to carry, it stays within the chunk size.
    private func capacity(_ family: ListFamily, _ input: LayoutInput) -> Int {
        let chunkSize = min(configuration.chunkSize, ListLayout.webKitRuleLimit)
        let carried = input.rules.siteExceptions.filter { family.endsWith($0.scope) }.count
            + (family.isNetwork ? input.exceptions.count : 0)
            + (family.mayNeedNavigationGuards ? input.rules.navigationGuards.count : 0)
        return chunkSize - carried
    }

    private func placer(_ family: ListFamily, _ input: LayoutInput) -> FamilyPlacer {
        let capacity = capacity(family, input)
        return FamilyPlacer(family: family, members: input.members[family] ?? [], capacity: capacity,
                            recentLimit: min(configuration.recentListLimit, max(1, capacity)))
    }

    /// Decides how many stable lists each family gets, then splits each family evenly.
    private func freshPlacement(_ input: LayoutInput) throws -> [PlacedList] {
        var counts: [ListFamily: Int] = [:]
        var required = 0
        var recentReserve = 0
        for family in ListFamily.allCases {
            let members = input.weight(family)
            guard members > 0 else { continue }
            let capacity = capacity(family, input)
            guard capacity > 0 else {
                throw ConversionError.layoutImpossible(
                    "\(family.rawValue) lists must carry \(configuration.chunkSize - capacity) exceptions but the chunk size is \(configuration.chunkSize); raise --chunk-size")
            }
            counts[family] = (members + capacity - 1) / capacity
            required += counts[family]!
            // New host blocks join the path list when there is one (see `LayoutInput`): no recent list to reserve.
            let newcomersJoinPaths = family == .networkHosts && !(input.members[.networkPaths] ?? []).isEmpty
            if family.hasRecentList, !newcomersJoinPaths { recentReserve += 1 }
        }
        guard required <= configuration.maxLists else {
            throw ConversionError.layoutImpossible(
                "the rules need at least \(required) lists of \(min(configuration.chunkSize, ListLayout.webKitRuleLimit)) rules but at most \(configuration.maxLists) are allowed; raise the chunk size or the list limit")
        }
        if required + recentReserve > configuration.maxLists { recentReserve = 0 }
        var spare = configuration.maxLists - required - recentReserve
        // Spare lists go where they split the most bytes: more, smaller stable lists mean a
        // removed rule changes a smaller share of the set. Path lists are left alone: any added
        // exception changes all of them anyway.
        let bytes = Dictionary(uniqueKeysWithValues: ListFamily.allCases.map { ($0, input.bytes($0)) })
        while spare > 0 {
            var best: ListFamily?
            var bestSize = 0
            for family in ListFamily.allCases where family != .networkPaths {
                guard let lists = counts[family] else { continue }
                let size = bytes[family]! / (lists + 1)
                if size >= ListLayout.minimumStableListBytes, size > bestSize {
                    best = family
                    bestSize = size
                }
            }
            guard let best else { break }
            counts[best]! += 1
            spare -= 1
        }
        // Families are placed independently (sorting the host blocks is most of it).
        let families = ListFamily.allCases
        return Parallel.map(families.count) { placer(families[$0], input).fresh(stableLists: counts[families[$0]] ?? 0) }
            .flatMap { $0 }
    }

    private func state(_ placed: [PlacedList], _ built: [LaidOutList], _ input: LayoutInput) -> LayoutState {
        LayoutState(
            chunkSize: configuration.chunkSize, maxLists: configuration.maxLists,
            selectorsPerRule: configuration.genericSelectorsPerRule,
            lists: zip(placed, built).map { list, laidOut in
                let members = input.members[list.family] ?? []
                return LayoutState.List(id: list.id, family: list.family, isRecent: list.isRecent,
                                        members: list.members.map { members[$0].key }, deferredRuns: laidOut.deferredRuns)
            })
    }

    /// Moves a family's recent list into one of its stable lists that changes today anyway: the
    /// move then costs devices nothing extra, and the recent list, downloaded again every day it
    /// grows, starts small again. A stable list "changes anyway" when its bytes differ from last
    /// run's (when those are known) or, without them, when it lost members.
    private func promoteIntoChangedLists(_ placed: inout [PlacedList], _ built: inout [LaidOutList], _ input: LayoutInput,
                                         previous: LayoutState, previousLists: [String: [UInt8]]) {
        let before = Dictionary(previous.lists.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for family in ListFamily.allCases where family.hasRecentList {
            guard let recent = placed.firstIndex(where: { $0.family == family && $0.isRecent }) else { continue }
            let capacity = capacity(family, input)
            var target: Int?
            for index in placed.indices where placed[index].family == family && !placed[index].isRecent && built[index].kept == nil {
                guard let old = before[placed[index].id], !old.isRecent,
                      placed[index].members.count + placed[recent].members.count <= capacity else { continue }
                let changes: Bool
                if let bytes = previousLists[placed[index].id] {
                    changes = bytes != built[index].json
                } else {
                    changes = placed[index].members.count < old.members.count
                }
                if changes, target == nil || placed[index].members.count < placed[target!].members.count { target = index }
            }
            guard let target else { continue }
            placed[target].members += placed[recent].members
            built[target] = build([placed[target]], input)[0]
            placed.remove(at: recent)
            built.remove(at: recent)
        }
    }

    /// Stable lists that only lost rules keep last run's bytes for up to `removalGraceRuns` runs.
    private func deferRemovals(_ built: inout [LaidOutList], previous: LayoutState, previousLists: [String: [UInt8]]) {
        let deferral = DeferredRemoval(graceRuns: configuration.removalGraceRuns)
        guard deferral.graceRuns > 0 else { return }
        let before = Dictionary(previous.lists.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for index in built.indices {
            guard let old = before[built[index].id], !old.isRecent, old.family == built[index].family,
                  let bytes = previousLists[built[index].id] else { continue }
            if let kept = deferral.keep(current: built[index].rules, previous: bytes, deferredRuns: old.deferredRuns) {
                built[index].kept = kept
                built[index].deferredRuns = old.deferredRuns + 1
            }
        }
    }

    // MARK: building

    /// Builds every list, the lists spread over the cores (each is independent of the others).
    private func build(_ placed: [PlacedList], _ input: LayoutInput) -> [LaidOutList] {
        Parallel.map(placed.count) { build(placed[$0], input) }
    }

    private func build(_ list: PlacedList, _ input: LayoutInput) -> LaidOutList {
        let members = (input.members[list.family] ?? [])
        let indices = list.members.map { members[$0].index }
        var rules: [[UInt8]]
        let scope: ExceptionScope
        var guarded = false
        if list.family.isNetwork {
            (rules, scope, guarded) = networkRules(indices, input, guards: list.family.mayNeedNavigationGuards)
        } else {
            rules = cosmeticRules(indices, input)
            // Site selectors act in their site's documents, which any page may embed in a frame
            // (see `CosmeticRuleBuilder`), so every hiding site exception can concern them.
            scope = ExceptionScope(urlHosts: [], pageDomains: [nil])
        }
        for exception in input.rules.siteExceptions
        where list.family.endsWith(exception.scope) && scope.mayActOnPage(of: exception.pages) {
            rules.append(exception.json)
        }
        if !guarded, list.family.mayNeedNavigationGuards, indices.contains(where: { input.rules.network[$0].navigation == .needsGuard }) {
            rules += input.rules.navigationGuards
        }
        return LaidOutList(id: list.id, family: list.family, rules: rules)
    }

    /// Carve-out units first (each block with its own `ignore-previous-rules` right after it), then
    /// plain blocks, the exceptions that can cancel them, and `$important` blocks last. Also returns
    /// the scope of everything in the list, for the site exceptions that end it.
    ///
    /// When `guards` allows it and the list holds both `.needsGuard` blocks and `.mustNotBeGuarded`
    /// blocks (a path list), the order is: guarded blocks, the navigation guards, the
    /// `.mustNotBeGuarded` blocks, then exceptions and `$important` blocks; the third value is then
    /// true. `ignore-previous-rules` only cancels earlier matches, so the guards cancel page loads
    /// and popups of the guarded blocks only, and the exceptions after everything cancel all of it.
    /// `LayoutInput` puts `.mustNotBeGuarded` blocks in path lists only when no `$important` block
    /// needs the guards and they have no carve-out.
    private func networkRules(_ indices: [Int], _ input: LayoutInput, guards: Bool) -> ([[UInt8]], ExceptionScope, Bool) {
        // Rule indices by place in the list first, then one array of exactly the list's rules:
        // every JSON array is referenced once, not once per intermediate array.
        var carveOuts: [Int] = []
        var blocks: [Int] = []
        var afterGuards: [Int] = []
        var important: [Int] = []
        var needsGuards = false
        var blockHosts: [String?] = []
        var blockPages: [[String]?] = []
        var blockTypes: [WebKitResourceTypes?] = []
        var allPages: [[String]?] = []
        blocks.reserveCapacity(indices.count)
        blockHosts.reserveCapacity(indices.count)
        blockPages.reserveCapacity(indices.count)
        blockTypes.reserveCapacity(indices.count)
        allPages.reserveCapacity(indices.count)
        input.rules.network.withUnsafeBufferPointer { network in
            for index in indices {
                allPages.append(network[index].pageCondition.ifDomain)
                switch network[index].kind {
                case .importantBlock:
                    important.append(index)
                case .block, .exception:
                    blockHosts.append(network[index].anchorHost)
                    blockPages.append(network[index].pageCondition.ifDomain)
                    blockTypes.append(network[index].resourceTypes)
                    if network[index].navigation == .needsGuard { needsGuards = true }
                    if network[index].carveOut != nil {
                        carveOuts.append(index)
                    } else if guards, network[index].navigation == .mustNotBeGuarded {
                        afterGuards.append(index)
                    } else {
                        blocks.append(index)
                    }
                }
            }
        }
        var exceptions: [Int] = []
        if !blockHosts.isEmpty {
            let scope = ExceptionScope(urlHosts: blockHosts, pageDomains: blockPages, resourceTypes: blockTypes)
            for index in input.exceptions {
                let exception = input.rules.network[index]
                if scope.mayCancel(exceptionHost: exception.anchorHost, pages: exception.pageCondition.ifDomain,
                                   resourceTypes: exception.resourceTypes) {
                    exceptions.append(index)
                }
            }
        }
        let guardsInside = needsGuards && !afterGuards.isEmpty
        var out: [[UInt8]] = []
        out.reserveCapacity(2 * carveOuts.count + blocks.count + afterGuards.count + exceptions.count + important.count
                            + (guardsInside ? input.rules.navigationGuards.count : 0))
        input.rules.network.withUnsafeBufferPointer { network in
            for index in carveOuts {
                out.append(network[index].json)
                out.append(network[index].carveOut!)
            }
            for index in blocks { out.append(network[index].json) }
            if guardsInside { out += input.rules.navigationGuards }
            for index in afterGuards { out.append(network[index].json) }
            for index in exceptions { out.append(network[index].json) }
            for index in important { out.append(network[index].json) }
        }
        return (out, ExceptionScope(urlHosts: [], pageDomains: allPages), guardsInside)
    }

    private func cosmeticRules(_ indices: [Int], _ input: LayoutInput) -> [[UInt8]] {
        CosmeticRuleBuilder(perRule: configuration.genericSelectorsPerRule).rules(indices.map { input.rules.cosmetic[$0] })
    }

    /// The first limit `lists` break, or nil.
    private func violation(_ lists: [LaidOutList], chunkSize: Int) -> String? {
        if lists.count > configuration.maxLists {
            return "\(lists.count) lists, more than the limit of \(configuration.maxLists)"
        }
        for list in lists where list.rules.count > chunkSize || list.rules.isEmpty {
            return "list \(list.id) has \(list.rules.count) rules, more than the chunk size \(chunkSize)"
        }
        return nil
    }
}

/// The converted rules sorted into what layout places (members, by family) and what it derives
/// per list (exceptions, site exceptions).
struct LayoutInput: Sendable {
    var rules: ConvertedRules
    var members: [ListFamily: [LayoutMember]] = [:]
    /// Indices of the `@@` rules in `rules.network`, in input order.
    var exceptions: [Int] = []

    /// - Parameter previous: with it, new host blocks join the path lists (see `joinsPathList`).
    init(_ rules: ConvertedRules, previous: LayoutState? = nil) {
        self.rules = rules
        // Hosts an anchored exception concerns: their blocks are "contested" (see `Volatility`).
        // Unanchored exceptions sit in every host list anyway, so they make no block contested.
        var exceptionHosts = HostRelationIndex()
        for rule in rules.network where rule.kind == .exception {
            if let host = rule.anchorHost { exceptionHosts.insert(host) }
        }
        // Pages where a `$genericblock` site exception ends the generic block lists: only site
        // blocks acting on such pages need lists of their own (see `ListFamily.networkSites`).
        var genericBlockPages = HostRelationIndex()
        var genericBlockEverywhere = false
        for exception in rules.siteExceptions where exception.scope == .genericBlocking {
            if exception.pages.isEmpty { genericBlockEverywhere = true }
            for page in exception.pages { genericBlockPages.insert(page) }
        }
        // A `$important` block that needs the guards must come before them, but after every
        // exception, so then no block may follow the guards (see `networkRules`).
        let navigationAfterGuards = !rules.network.contains { $0.kind == .importantBlock && $0.navigation == .needsGuard }
        // New host blocks (and those that joined a path list before) go to the path lists, which
        // carry every exception and so change most days anyway: a new rule then costs devices no
        // extra list download, where a recent list or a stable host list would change for it.
        // Host blocks are correct there: the path lists carry every exception, end with the same
        // site exceptions, and `.mustNotBeGuarded` blocks follow their guards.
        var previousFamily: [StableKey: ListFamily] = [:]
        var pathListExists = false
        if let previous {
            previousFamily.reserveCapacity(previous.lists.reduce(0) { $0 + $1.members.count })
            for list in previous.lists {
                if list.family == .networkPaths { pathListExists = true }
                for key in list.members { previousFamily[key] = list.family }
            }
        }
        let lookup = FamilyLookup(
            exceptionHosts: exceptionHosts, genericBlockPages: genericBlockPages,
            genericBlockEverywhere: genericBlockEverywhere, navigationAfterGuards: navigationAfterGuards,
            previousFamily: previousFamily, pathListExists: pathListExists)
        // Each rule is analysed on its own (the costly part: hashing its key, its sort key), in
        // stripes spread over the cores, the selectors' stripes with the network rules'; the
        // results are then collected in input order.
        let stripe = 4_096
        let network = rules.network, cosmetic = rules.cosmetic
        let networkStripes = (network.count + stripe - 1) / stripe
        let cosmeticStripes = (cosmetic.count + stripe - 1) / stripe
        let pieces = Parallel.map(networkStripes + cosmeticStripes) { piece -> [NetworkAnalysis] in
            if piece < networkStripes {
                return (piece * stripe..<min(network.count, (piece + 1) * stripe)).map { lookup.analyse(network[$0], index: $0) }
            }
            let start = (piece - networkStripes) * stripe
            return (start..<min(cosmetic.count, start + stripe)).map { .member(Self.member(cosmetic[$0], index: $0)) }
        }
        // Room for every rule in each family: big arrays are mapped lazily, so the pages a family
        // does not fill cost nothing, and no array is copied while it grows.
        var byFamily = ListFamily.allCases.map { family -> [LayoutMember] in
            var members: [LayoutMember] = []
            members.reserveCapacity(family.isNetwork ? network.count : cosmetic.count)
            return members
        }
        var index = 0
        for piece in pieces[..<networkStripes] {
            for analysis in piece {
                switch analysis {
                case .exception:
                    exceptions.append(index)
                case .member(let member):
                    byFamily[member.family.position].append(member)
                }
                index += 1
            }
        }
        for piece in pieces[networkStripes...] {
            for case .member(let member) in piece { byFamily[member.family.position].append(member) }
        }
        for family in ListFamily.allCases where !byFamily[family.position].isEmpty {
            members[family] = byFamily[family.position]
        }
    }

    /// A selector's member: generic selectors (with or without exceptions) and site selectors
    /// are families of their own; a fresh layout groups site selectors by their domain set.
    private static func member(_ selector: CosmeticSelector, index: Int) -> LayoutMember {
        let family: ListFamily
        var volatility = Volatility.calm
        var sites: [String] = []
        switch selector.domains {
        case .everywhere:
            family = .cosmeticGeneric
        case .except:
            family = .cosmeticGeneric
            volatility = Volatility.volatile
        case .only(let domains):
            family = .cosmeticSites
            if domains.count > 1 { volatility = Volatility.volatile }
            sites = domains
        }
        let order = FreshOrder(volatility: volatility, churn: selector.churn, tail: sites.isEmpty ? .none : .sites(sites))
        return LayoutMember(key: StableKey(sourceID: selector.sourceID, key: selector.key), family: family, index: index, freshOrder: order)
    }

    /// Rules the family's members become at most (a carve-out unit is two).
    func weight(_ family: ListFamily) -> Int {
        guard let members = members[family] else { return 0 }
        guard family.isNetwork else { return members.count }
        return members.reduce(0) { $0 + (rules.network[$1.index].carveOut == nil ? 1 : 2) }
    }

    /// Roughly how many JSON bytes the family's members become: what a device downloads and
    /// compiles when one of its lists changes.
    func bytes(_ family: ListFamily) -> Int {
        guard let members = members[family] else { return 0 }
        if family.isNetwork {
            return members.reduce(0) { $0 + rules.network[$1.index].json.count }
        }
        let json = members.reduce(0) { total, member in
            let selector = rules.cosmetic[member.index]
            switch selector.domains {
            case .everywhere, .except: return total + selector.selector.utf8.count + 2
            // A site selector usually brings its own rule: trigger, action and domain list.
            case .only(let domains): return total + selector.selector.utf8.count + 80 + domains.reduce(0) { $0 + $1.utf8.count + 4 }
            }
        }
        // Selectors and domain lists gzip about half as well as host rules (about 4.5× against 9×
        // on the 2020-10 lists), gzip bytes are what a device downloads, and hiding rules are
        // edited in place more often; ×3 measured slightly better than ×2 on the 2020-10 dailies.
        return json * 3
    }
}

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
        let order = FreshOrder(volatility: volatility, churn: rule.churn, tail: sortHost.map { .reversedHost($0) } ?? .none)
        let key = StableKey(sourceID: rule.sourceID, key: rule.key)
        if family == .networkHosts || family == .networkHostPaths, joinsPathList(rule, key) { family = .networkPaths }
        return .member(LayoutMember(key: key, family: family, index: index, freshOrder: order))
    }

    private func concernsGenericBlock(_ pages: [String]) -> Bool {
        genericBlockEverywhere || pages.contains(where: genericBlockPages.relates(to:))
    }

    private func joinsPathList(_ rule: NetworkRule, _ key: StableKey) -> Bool {
        guard pathListExists, rule.navigation != .mustNotBeGuarded || navigationAfterGuards else { return false }
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
