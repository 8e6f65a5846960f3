import PublicSuffix

/// `$third-party` / `~third-party` judged where ABP judges them, in the frame that issues the
/// request (`ConversionTarget.judgesPartyInFrame`). WebKit's `load-type` compares the request with
/// the top page, and WebKit has no test that compares it with the frame. A rule anchored to a host
/// (`||ads.example.com^`) fixes the site of every request it matches, so its party test becomes a
/// test of the frame's site, which a frame-URL condition can make: `$third-party` is "the frame is
/// not on that site", `~third-party` is "it is". Folded into the rule's `$domain` sites, it is the
/// rule's one frame condition (WebKit allows one condition per trigger).
enum FramePartyCondition {
    /// The rule's frame condition with the party test folded in.
    enum Merged: Equatable {
        case condition(DomainCondition)
        /// The party test and the `$domain` sites exclude each other: ABP never applies the rule.
        case never
        /// Only a new carve-out pair could say it; the rule keeps the top-page `load-type`.
        case inexpressible
    }

    /// The site every URL matched by a rule anchored to `anchorHost` is on, when each host at or
    /// below that site has it as registrable domain (so its frame-URL regex names exactly that site).
    static func site(anchorHost: String?, publicSuffixes: PublicSuffixList?) -> String? {
        guard let anchorHost, let publicSuffixes else { return nil }
        return publicSuffixes.sharedRegistrableDomain(of: anchorHost)
    }

    /// `condition` (sites of the frame, from `$domain`) and "the frame is (`thirdParty` false) or is
    /// not (true) on `site`" as one condition. Sites are nested or disjoint, which keeps it exact.
    static func merge(_ condition: DomainCondition, thirdParty: Bool, site: String) -> Merged {
        func within(_ domain: String, _ parent: String) -> Bool {
            DomainNormalizer.isSameOrSubdomain(domain, of: parent)
        }
        if thirdParty {
            switch condition {
            case .any:
                return .condition(.except([site]))
            case .except(let excluded):
                if excluded.contains(where: { within(site, $0) }) { return .condition(condition) }
                return .condition(.except((excluded.filter { !within($0, site) } + [site]).sorted()))
            case .only(let included):
                let foreign = included.filter { !within($0, site) }
                if foreign.isEmpty { return .never }
                // A parent of the site (a public suffix) would need the site carved out.
                if foreign.contains(where: { within(site, $0) }) { return .inexpressible }
                return .condition(.only(foreign))
            case .carvedOut(let included, _):
                if included.contains(where: { within($0, site) || within(site, $0) }) { return .inexpressible }
                return .condition(condition)
            }
        }
        switch condition {
        case .any:
            return .condition(.only([site]))
        case .only(let included):
            let onSite = Set(included.compactMap { within($0, site) ? $0 : within(site, $0) ? site : nil })
            return onSite.isEmpty ? .never : .condition(.only(onSite.sorted()))
        case .except(let excluded):
            if excluded.contains(where: { within(site, $0) }) { return .never }
            return excluded.contains(where: { within($0, site) }) ? .inexpressible : .condition(.only([site]))
        case .carvedOut:
            return .inexpressible
        }
    }
}

extension NetworkRuleBuilder {
    /// Which of a rule's triggers a target judges in the frame, and with what: the `$domain` sites
    /// and, where the rule fixes the request's site, its party test. Document loads stay on the top
    /// page (`FrameDomainCondition`: WebKitGTK judges a frame load's frame condition on `about:blank`).
    struct FrameConditions {
        /// The condition of the triggers judged in the frame.
        var condition: DomainCondition
        /// The rule's `$domain` sites are judged in the frame.
        var domainsInFrame: Bool
        /// The party test moved from `load-type` into `condition`.
        var partyInFrame = false
        /// The party test and the sites exclude each other: the triggers judged in the frame are left out.
        var never = false
        var thirdParty: Bool?

        init(
            _ filter: NetworkFilter, condition: DomainCondition, anchorHost: String?, target: ConversionTarget,
            publicSuffixes: PublicSuffixList?
        ) {
            self.condition = condition
            thirdParty = filter.options.thirdParty
            domainsInFrame = target.judgesDomainsInFrame && condition != .any
            guard target.judgesPartyInFrame, let thirdParty,
                let site = FramePartyCondition.site(anchorHost: anchorHost, publicSuffixes: publicSuffixes)
            else { return }
            // A typeless `$third-party` rule blocks the site's iframes on other sites' pages itself,
            // so the frames it would judge rarely load; judging it in the frame cost 11 % of a first
            // compile on 2025-10 (docs/targets.md).
            if thirdParty, condition == .any, !filter.options.hasTypeOptions { return }
            switch FramePartyCondition.merge(condition, thirdParty: thirdParty, site: site) {
            case .condition(let merged):
                self.condition = merged
                partyInFrame = true
            case .never:
                never = true
                partyInFrame = true
            case .inexpressible:
                break
            }
        }

        /// A typeless rule becomes a subresource trigger judged in the frame and a document trigger
        /// judged on the top page, which keeps `load-type` and the `$domain` sites as `if-domain`.
        var splitsTypeless: Bool { domainsInFrame || partyInFrame }

        func judgesInFrame(_ group: TypeGroup) -> Bool {
            splitsTypeless && !FrameDomainCondition.loadsDocument(group)
        }

        /// The `load-type` a trigger keeps: none where its frame condition carries the party test.
        func party(in group: TypeGroup, framed: Bool) -> Bool? {
            framed && partyInFrame ? nil : thirdParty
        }
    }
}
