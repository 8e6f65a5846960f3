/// The converted rules sorted into what layout places (members, by family) and what it derives
/// per list (exceptions, site exceptions).
struct LayoutInput: Sendable {
    var rules: ConvertedRules
    var members: [ListFamily: [LayoutMember]] = [:]
    /// Indices of the `@@` rules in `rules.network`, in input order.
    var exceptions: [Int] = []

    /// - Parameter previous: with it, new host-path blocks join the path lists (see `joinsPathList`).
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
        let navigationAfterGuards = !rules.network.contains {
            $0.kind == .importantBlock && $0.navigation == .needsGuard
        }
        // New host-path blocks (and those that joined a path list before) go to the path lists,
        // which carry every exception and so change most days anyway: a new rule then costs
        // devices no extra list compile, where a stable host-path list would change for it. They
        // are a few a day; new host blocks, dozens a day, wait in the host recent list instead, so
        // the list every device recompiles daily does not grow with them. Host blocks are correct
        // in a path list: it carries every exception and ends with the same site exceptions.
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
        let network = rules.network
        let cosmetic = rules.cosmetic
        let networkStripes = (network.count + stripe - 1) / stripe
        let cosmeticStripes = (cosmetic.count + stripe - 1) / stripe
        let pieces = Parallel.map(networkStripes + cosmeticStripes) { piece -> [NetworkAnalysis] in
            if piece < networkStripes {
                return (piece * stripe..<min(network.count, (piece + 1) * stripe)).map {
                    lookup.analyse(network[$0], index: $0)
                }
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
        let order = FreshOrder(
            volatility: volatility, churn: selector.churn, tail: sites.isEmpty ? .none : .sites(sites))
        return LayoutMember(
            key: StableKey(sourceID: selector.sourceID, key: selector.key), family: family, index: index,
            freshOrder: order)
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
            case .only(let domains):
                return total + selector.selector.utf8.count + 80 + domains.reduce(0) { $0 + $1.utf8.count + 4 }
            }
        }
        // Selectors and domain lists gzip about half as well as host rules (about 4.5× against 9×
        // on the 2020-10 lists), gzip bytes are what a device downloads, and hiding rules are
        // edited in place more often; ×3 measured slightly better than ×2 on the 2020-10 dailies.
        return json * 3
    }
}
