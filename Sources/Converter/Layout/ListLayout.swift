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

    /// A fresh layout does not split a family into stable lists of fewer JSON bytes than this:
    /// every list costs each page load a lookup, and tiny lists save little when they change.
    static let minimumStableListBytes = 150_000

    let configuration: ConverterConfiguration
    /// Built once per layout from `configuration` (see `ConverterConfiguration.entityDomainFilters`),
    /// when the rules have entity sites.
    private let entityFilters: EntityDomainFilters?

    /// - Parameter namesEntities: whether the rules have entity sites (`name.*`) to name; without,
    ///   the Public Suffix List is not indexed.
    init(configuration: ConverterConfiguration, namesEntities: Bool = true) {
        self.configuration = configuration
        entityFilters = namesEntities ? configuration.entityDomainFilters : nil
    }

    /// - Parameters:
    ///   - previousLists: last run's published bytes by list id, for `DeferredRemoval`; may be empty.
    func layOut(_ rules: ConvertedRules, previous: LayoutState?, previousLists: [String: [UInt8]] = [:]) throws
        -> Result
    {
        let chunkSize = configuration.rulesPerList
        if let previous, previous.chunkSize == configuration.chunkSize, previous.maxLists == configuration.maxLists,
            previous.selectorsPerRule == configuration.genericSelectorsPerRule
        {
            let input = LayoutInput(rules, previous: previous)
            var placed = ListFamily.allCases.flatMap { family in
                placer(family, input).incremental(previous: previous.lists.filter { $0.family == family })
            }
            var built = builder(input).build(placed)
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
        let built = builder(input).build(placed)
        if let problem = violation(built, chunkSize: chunkSize) { throw ConversionError.layoutImpossible(problem) }
        return Result(lists: built, state: state(placed, built, input), isFresh: true, input: input)
    }

    private func builder(_ input: LayoutInput) -> ListBuilder {
        ListBuilder(
            input: input, selectorsPerRule: configuration.genericSelectorsPerRule,
            entityFilters: entityFilters)
    }

    // MARK: placement

    /// Most members a list of `family` may hold so that, with every exception and site exception
    /// it may have to carry, it stays within the chunk size.
    private func capacity(_ family: ListFamily, _ input: LayoutInput) -> Int {
        let chunkSize = configuration.rulesPerList
        let carried =
            input.rules.siteExceptions.filter { family.endsWith($0.scope) }.count
            + (family.isNetwork ? input.exceptions.count : 0)
            + (family.mayNeedNavigationGuards ? input.rules.navigationGuards.count : 0)
        return chunkSize - carried
    }

    private func placer(_ family: ListFamily, _ input: LayoutInput) -> FamilyPlacer {
        let capacity = capacity(family, input)
        return FamilyPlacer(
            family: family, members: input.members[family] ?? [], capacity: capacity,
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
                    "\(family.rawValue) lists must carry \(configuration.rulesPerList - capacity) exceptions but the chunk size is \(configuration.rulesPerList); raise \(configuration.settingNames.chunkSize)"
                )
            }
            counts[family] = (members + capacity - 1) / capacity
            required += counts[family]!
            if family.hasRecentList { recentReserve += 1 }
        }
        guard required <= configuration.maxLists else {
            throw ConversionError.layoutImpossible(
                "the rules need at least \(required) lists of \(configuration.rulesPerList) rules but at most \(configuration.maxLists) are allowed; raise \(configuration.settingNames.chunkSize) or \(configuration.settingNames.maxLists)"
            )
        }
        if required + recentReserve > configuration.maxLists { recentReserve = 0 }
        var spare = configuration.maxLists - required - recentReserve
        // Spare lists go where they split the most bytes, weighed by what they cost to compile:
        // more, smaller stable lists mean a removed rule changes a smaller share of the set. Path
        // lists are left alone: any added exception changes all of them anyway.
        let bytes = Dictionary(
            uniqueKeysWithValues: ListFamily.allCases.map { ($0, input.bytes($0) * $0.compileWeight / 100) })
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
        return Parallel.map(families.count) {
            placer(families[$0], input).fresh(stableLists: counts[families[$0]] ?? 0)
        }
        .flatMap { $0 }
    }

    private func state(_ placed: [PlacedList], _ built: [LaidOutList], _ input: LayoutInput) -> LayoutState {
        LayoutState(
            chunkSize: configuration.chunkSize, maxLists: configuration.maxLists,
            selectorsPerRule: configuration.genericSelectorsPerRule,
            lists: zip(placed, built).map { list, laidOut in
                let members = input.members[list.family] ?? []
                return LayoutState.List(
                    id: list.id, family: list.family, isRecent: list.isRecent,
                    members: list.members.map { members[$0].key }, deferredRuns: laidOut.deferredRuns)
            })
    }

    /// Moves a family's recent list into one of its stable lists that changes today anyway: the
    /// move then costs devices nothing extra, and the recent list, downloaded again every day it
    /// grows, starts small again. A stable list "changes anyway" when its bytes differ from last
    /// run's (when those are known) or, without them, when it lost members.
    private func promoteIntoChangedLists(
        _ placed: inout [PlacedList], _ built: inout [LaidOutList], _ input: LayoutInput,
        previous: LayoutState, previousLists: [String: [UInt8]]
    ) {
        let before = Dictionary(previous.lists.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for family in ListFamily.allCases where family.hasRecentList {
            guard let recent = placed.firstIndex(where: { $0.family == family && $0.isRecent }) else { continue }
            let capacity = capacity(family, input)
            var target: Int?
            for index in placed.indices
            where placed[index].family == family && !placed[index].isRecent && built[index].kept == nil {
                guard let old = before[placed[index].id], !old.isRecent,
                    placed[index].members.count + placed[recent].members.count <= capacity
                else { continue }
                let changes: Bool
                if let bytes = previousLists[placed[index].id] {
                    changes = bytes != built[index].json
                } else {
                    changes = placed[index].members.count < old.members.count
                }
                if changes, target == nil || placed[index].members.count < placed[target!].members.count {
                    target = index
                }
            }
            guard let target else { continue }
            placed[target].members += placed[recent].members
            built[target] = builder(input).build(placed[target])
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
                let bytes = previousLists[built[index].id]
            else { continue }
            if let kept = deferral.keep(current: built[index].rules, previous: bytes, deferredRuns: old.deferredRuns) {
                built[index].kept = kept
                built[index].deferredRuns = old.deferredRuns + 1
            }
        }
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
