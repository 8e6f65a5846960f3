/// Turns placed lists into their rules: each list's members in the order WebKit must see them,
/// followed by the exceptions, site exceptions and navigation guards the members need. Each
/// list is built from its members and the shared input alone.
struct ListBuilder: Sendable {
    var input: LayoutInput
    var selectorsPerRule: Int
    /// The url-filters of the entity sites (`name.*`) hiding rules kept; nil when none were kept.
    var entityFilters: EntityDomainFilters? = nil

    /// Builds every list, the lists spread over the cores (each is independent of the others).
    func build(_ placed: [PlacedList]) -> [LaidOutList] {
        Parallel.map(placed.count) { build(placed[$0]) }
    }

    func build(_ list: PlacedList) -> LaidOutList {
        let members = (input.members[list.family] ?? [])
        let indices = list.members.map { members[$0].index }
        var rules: [[UInt8]]
        var origins = ListOrigins()
        let scope: ExceptionScope
        var guarded = false
        let known = input.rules.origins
        if list.family.isNetwork {
            (rules, scope, guarded) = networkRules(
                indices, guards: list.family.mayNeedNavigationGuards, origins: &origins)
        } else {
            (rules, origins) = cosmeticRules(indices)
            // Site selectors act in their site's documents, which any page may embed in a frame
            // (see `CosmeticRuleBuilder`), so every hiding site exception can concern them.
            scope = ExceptionScope(urlHosts: [], pageDomains: [nil])
        }
        var siteExceptions = SiteExceptionRun()
        for (index, exception) in input.rules.siteExceptions.enumerated()
        where list.family.endsWith(exception.scope) && scope.mayActOnPage(of: exception.pages) {
            siteExceptions.add(
                exception, origin: index < known.siteExceptions.count ? known.siteExceptions[index] : nil)
        }
        if let rule = siteExceptions.rule {
            rules.append(rule)
            origins.closeRule(joining: siteExceptions.origins)
        }
        for pattern in siteExceptions.patternRules {
            rules.append(pattern.json)
            origins.closeRule(pattern.origin)
        }
        if !guarded, list.family.mayNeedNavigationGuards,
            indices.contains(where: { input.rules.network[$0].navigation == .needsGuard })
        {
            rules += input.rules.navigationGuards
            for _ in input.rules.navigationGuards { origins.closeRule(nil) }
        }
        return LaidOutList(id: list.id, family: list.family, rules: rules, origins: origins)
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
    private func networkRules(_ indices: [Int], guards: Bool, origins: inout ListOrigins) -> (
        [[UInt8]], ExceptionScope, Bool
    ) {
        // Rule indices by place in the list first, then one array of exactly the list's rules:
        // every JSON array is referenced once, not once per intermediate array.
        let sections = NetworkSections(indices, input.rules.network, guards: guards)
        let exceptions = exceptions(cancelling: sections)
        let guardsInside = sections.needsGuards && !sections.afterGuards.isEmpty
        var out: [[UInt8]] = []
        out.reserveCapacity(
            2 * sections.carveOuts.count + sections.blocks.count + sections.afterGuards.count
                + exceptions.count + sections.important.count
                + (guardsInside ? input.rules.navigationGuards.count : 0))
        origins.reserveCapacity(out.capacity)
        let known = input.rules.origins
        let lines = known.network
        func origin(_ index: Int) -> LineOrigin? { index < lines.count ? lines[index] : nil }
        input.rules.network.withUnsafeBufferPointer { network in
            for index in sections.carveOuts {
                out.append(network[index].json)
                out.append(network[index].carveOut!)
                origins.closeRule(origin(index))
                origins.closeRule(origin(index))
            }
            for index in sections.blocks {
                out.append(network[index].json)
                origins.closeRule(origin(index))
            }
            if guardsInside {
                out += input.rules.navigationGuards
                for _ in input.rules.navigationGuards { origins.closeRule(nil) }
            }
            for section in [sections.afterGuards, exceptions, sections.important] {
                for index in section {
                    out.append(network[index].json)
                    origins.closeRule(origin(index))
                }
            }
        }
        return (out, ExceptionScope(urlHosts: [], pageDomains: sections.allPages), guardsInside)
    }

    /// The exceptions (indices into `input.rules.network`, in input order) that may cancel one of
    /// the sections' blocks.
    private func exceptions(cancelling sections: NetworkSections) -> [Int] {
        guard !sections.blockHosts.isEmpty else { return [] }
        let scope = ExceptionScope(
            urlHosts: sections.blockHosts, pageDomains: sections.blockPages,
            resourceTypes: sections.blockTypes)
        return input.exceptions.filter { index in
            let exception = input.rules.network[index]
            return scope.mayCancel(
                exceptionHost: exception.anchorHost,
                pages: exception.judgedInFrame ? nil : exception.pageCondition.ifDomain,
                resourceTypes: exception.resourceTypes)
        }
    }

    private func cosmeticRules(_ indices: [Int]) -> ([[UInt8]], ListOrigins) {
        let known = input.rules.origins
        let lines = indices.map { $0 < known.cosmetic.count ? known.cosmetic[$0] : nil }
        return CosmeticRuleBuilder(perRule: selectorsPerRule, entityFilters: entityFilters).rules(
            indices.map { input.rules.cosmetic[$0] }, origins: lines)
    }
}

/// A network list's members sorted by where they go in the list, with what its exceptions are
/// chosen by (the hosts, pages and resource types of the blocks they could cancel).
private struct NetworkSections {
    var carveOuts: [Int] = []
    var blocks: [Int] = []
    var afterGuards: [Int] = []
    var important: [Int] = []
    var needsGuards = false
    var blockHosts: [String?] = []
    var blockPages: [[String]?] = []
    var blockTypes: [WebKitResourceTypes?] = []
    var allPages: [[String]?] = []

    init(_ indices: [Int], _ rules: [NetworkRule], guards: Bool) {
        blocks.reserveCapacity(indices.count)
        blockHosts.reserveCapacity(indices.count)
        blockPages.reserveCapacity(indices.count)
        blockTypes.reserveCapacity(indices.count)
        allPages.reserveCapacity(indices.count)
        rules.withUnsafeBufferPointer { network in
            for index in indices {
                // A rule judged in the frame acts on any top page: every site exception may concern it.
                let pages = network[index].judgedInFrame ? nil : network[index].pageCondition.ifDomain
                allPages.append(pages)
                switch network[index].kind {
                case .importantBlock:
                    important.append(index)
                case .block, .exception:
                    blockHosts.append(network[index].anchorHost)
                    blockPages.append(pages)
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
    }
}
