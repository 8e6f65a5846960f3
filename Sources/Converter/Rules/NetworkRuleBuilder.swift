import JSONBytes
import PublicSuffix

/// Builds the WebKit rule objects for one parsed network filter: url-filter variants × request-type
/// groups, with party, domain and case conditions. Pure bytes in, JSON bytes out.
struct NetworkRuleBuilder {
    /// One WebKit rule and, for `$domain=a|~b.a`, the exception that must follow it.
    struct BuiltRule: Equatable {
        var json: [UInt8]
        var carveOut: [UInt8]?
        /// The rule's `resource-type` (nil: it has none, so every type).
        var resourceTypes: WebKitResourceTypes?
        /// Its domain condition is a frame condition (see `NetworkRule.judgedInFrame`).
        var judgedInFrame = false
    }

    struct Built: Equatable {
        /// The line's first rule, kept inline: most lines yield exactly one, and a line's results
        /// live until layout, so an array each would cost 100,000 allocations on the real lists.
        var first: BuiltRule
        /// Further rules, when the pattern has several url-filter variants or the types several triggers.
        var more: [BuiltRule] = []
        var kind: NetworkRule.Kind
        var anchorHost: String?
        var condition: DomainCondition
        var navigation: NavigationPolicy
        /// `$domain=` entity sites left out (see `EntityDomains.plainPart`), for the report.
        var skippedPart: SkipReason? = nil

        var ruleCount: Int { 1 + more.count }

        func rule(_ index: Int) -> BuiltRule { index == 0 ? first : more[index - 1] }
    }

    /// A trigger's page condition as written: its key and its values (`*`-prefixed sites or frame-URL regexes).
    struct ConditionValues {
        var key: StaticString
        var values: [String]
    }

    /// The trigger fields a request-type set turns into (no heap storage: it is built per rule).
    struct TypeGroup: Equatable {
        enum LoadContext: Equatable { case any, topFrame, childFrame }
        /// nil: no `resource-type` key (the rule named no types).
        var resourceTypes: RequestTypes?
        var loadContext: LoadContext = .any
    }

    static func build(_ filter: NetworkFilter) -> Result<Built, SkipReasonError> {
        var scratch: [UInt8] = []
        return build(filter, scratch: &scratch)
    }

    /// - Parameter scratch: where each rule is written before it is copied out at its exact size
    ///   (the rules live until layout ends, and a grown buffer's slack was about half their
    ///   memory); reused from line to line by the caller, so a line costs no buffer allocation.
    /// - Parameter publicSuffixes: registrable domains, for a party test judged in the frame (nil: on the top page).
    static func build(
        _ filter: NetworkFilter, scratch: inout [UInt8], target: ConversionTarget = .safari17,
        publicSuffixes: PublicSuffixList? = nil
    ) -> Result<Built, SkipReasonError> {
        func fail(_ reason: SkipReason) -> Result<Built, SkipReasonError> { .failure(SkipReasonError(reason: reason)) }
        let options = filter.options
        if options.siteException != nil { return fail(filter.isException ? .siteExceptionPattern : .unsupportedOption) }
        if filter.isException, options.important { return fail(.unsupportedOption) }
        if filter.isException, options.effectiveTypes.contains(.document), options.hasTypeOptions {
            return fail(.siteExceptionPattern)
        }

        let urlFilter: URLFilter
        switch URLFilterBuilder.build(pattern: filter.pattern) {
        case .success(let built): urlFilter = built
        case .failure(let error): return .failure(error)
        }
        // A typeless `$important` block that would need the navigation guards gets explicit types
        // instead (ABP's default set): it must follow every exception, and guards after it would
        // push every `.mustNotBeGuarded` block of the set into a list of its own that repeats every
        // exception (measured on 2025-10: 1,341 exceptions compiled twice).
        let explicitDefaultTypes =
            !filter.isException && options.important && !options.hasTypeOptions
            && SiteExceptionBuilder.plainHost(filter.pattern) == nil
        let groups: [TypeGroup]
        switch explicitDefaultTypes ? typeGroups(RequestTypes.defaultTypes) : typeGroups(options) {
        case .success(let built): groups = built
        case .failure(let error): return .failure(error)
        }
        let plain: (included: [ArraySlice<UInt8>], excluded: [ArraySlice<UInt8>], skippedPart: SkipReason?)
        switch EntityDomains.plainPart(included: options.includedDomains, excluded: options.excludedDomains) {
        case .success(let part): plain = part
        case .failure(let error): return .failure(error)
        }
        let condition: DomainCondition
        switch DomainCondition.resolve(included: plain.included, excluded: plain.excluded) {
        case .success(let resolved): condition = resolved
        case .failure(let error): return .failure(error)
        }
        let kind: NetworkRule.Kind = filter.isException ? .exception : (options.important ? .importantBlock : .block)
        if case .carvedOut = condition {
            if filter.isException { return fail(.mixedDomainException) }
            if options.important { return fail(.mixedDomainImportant) }
        }
        if !filter.isException, condition == .any, options.thirdParty == nil, groups == [TypeGroup()],
            urlFilter.variants.contains(URLFilterBuilder.matchAll)
        {
            return fail(.matchesEverything)
        }

        let action: StaticString = filter.isException ? "ignore-previous-rules" : "block"
        var first: BuiltRule?
        var more: [BuiltRule] = []
        func add(_ rule: BuiltRule) {
            if first == nil { first = rule } else { more.append(rule) }
        }
        scratch.reserveCapacity(512)
        let frame = FrameConditions(
            filter, condition: condition, anchorHost: urlFilter.anchorHost, target: target,
            publicSuffixes: publicSuffixes)
        func json(
            _ variant: [UInt8], _ group: TypeGroup, _ condition: ConditionValues?, _ action: StaticString,
            party: Bool?
        ) -> [UInt8] {
            scratch.removeAll(keepingCapacity: true)
            appendRuleJSON(variant, options, group, condition: condition, action: action, party: party, to: &scratch)
            return scratch.withUnsafeBufferPointer { Array($0) }
        }
        let ruleGroups = frame.splitsTypeless ? FrameDomainCondition.groups(splitting: groups) : groups
        for variant in urlFilter.variants {
            for group in ruleGroups {
                let types = group.resourceTypes.map(WebKitResourceTypes.init)
                let framed = frame.judgesInFrame(group)
                if framed, frame.never { continue }
                let condition = framed ? frame.condition : condition
                let party = frame.party(in: group, framed: framed)
                func sites(_ domains: [String], included: Bool) -> ConditionValues {
                    framed
                        ? ConditionValues(
                            key: included ? "if-frame-url" : "unless-frame-url",
                            values: FrameDomainCondition.patterns(domains))
                        : ConditionValues(
                            key: included ? "if-domain" : "unless-domain", values: DomainCondition.starred(domains))
                }
                switch condition {
                case .any:
                    add(BuiltRule(json: json(variant, group, nil, action, party: party), resourceTypes: types))
                case .only(let domains):
                    add(
                        BuiltRule(
                            json: json(variant, group, sites(domains, included: true), action, party: party),
                            resourceTypes: types,
                            judgedInFrame: framed))
                case .except(let domains):
                    add(
                        BuiltRule(
                            json: json(variant, group, sites(domains, included: false), action, party: party),
                            resourceTypes: types,
                            judgedInFrame: framed))
                case .carvedOut(let included, let excluded):
                    add(
                        BuiltRule(
                            json: json(variant, group, sites(included, included: true), action, party: party),
                            carveOut: json(
                                variant, group, sites(excluded, included: true), "ignore-previous-rules", party: party),
                            resourceTypes: types,
                            judgedInFrame: framed))
                }
            }
        }
        guard let first else { return fail(frame.never ? .partyContradictsDomain : .emptyTypeSet) }
        return .success(
            Built(
                first: first, more: more, kind: kind, anchorHost: urlFilter.anchorHost, condition: condition,
                navigation: explicitDefaultTypes ? .unaffected : navigationPolicy(filter),
                skippedPart: plain.skippedPart))
    }

    /// See `NavigationPolicy`. A pure host filter is `||host^` (or `||host^|`) with no type option.
    static func navigationPolicy(_ filter: NetworkFilter) -> NavigationPolicy {
        if filter.isException { return .unaffected }
        let options = filter.options
        if options.hasTypeOptions {
            return options.effectiveTypes.intersection([.document, .popup]).isEmpty ? .unaffected : .mustNotBeGuarded
        }
        return SiteExceptionBuilder.plainHost(filter.pattern) == nil ? .needsGuard : .mustNotBeGuarded
    }

    /// ABP request types → WebKit `resource-type`/`load-context`. `$subdocument` is a document load in a
    /// child frame and `$document` one in the top frame, so they need their own trigger when mixed
    /// with other types. `$object` has no WebKit type and is dropped from mixed lists.
    static func typeGroups(_ options: NetworkOptions) -> Result<[TypeGroup], SkipReasonError> {
        options.hasTypeOptions ? typeGroups(options.effectiveTypes) : .success([TypeGroup()])
    }

    /// The triggers that express exactly `all` (an explicit type set).
    static func typeGroups(_ all: RequestTypes) -> Result<[TypeGroup], SkipReasonError> {
        let types = all.subtracting(.object)
        if types.isEmpty {
            return .failure(SkipReasonError(reason: all.contains(.object) ? .objectOnly : .emptyTypeSet))
        }
        var groups: [TypeGroup] = []
        let subresources = types.subtracting([.subdocument, .document])
        if !subresources.isEmpty { groups.append(TypeGroup(resourceTypes: subresources)) }
        let childFrame = types.contains(.subdocument)
        let topFrame = types.contains(.document)
        if childFrame && topFrame {
            groups.append(TypeGroup(resourceTypes: .document))
        } else if childFrame {
            groups.append(TypeGroup(resourceTypes: .document, loadContext: .childFrame))
        } else if topFrame {
            groups.append(TypeGroup(resourceTypes: .document, loadContext: .topFrame))
        }
        return .success(groups)
    }

    static func appendResourceTypes(_ types: WebKitResourceTypes, to out: inout [UInt8]) {
        JSONWriter.appendLiteral(#","resource-type":["#, to: &out)
        types.appendNames(to: &out)
        out.append(UInt8(ascii: "]"))
    }

    static func appendRuleJSON(
        _ urlFilter: [UInt8], _ options: NetworkOptions, _ group: TypeGroup,
        condition: ConditionValues?, action: StaticString, party thirdParty: Bool?, to out: inout [UInt8]
    ) {
        JSONWriter.appendLiteral(#"{"trigger":{"#, to: &out)
        JSONWriter.appendKey("url-filter", to: &out)
        JSONWriter.appendString(urlFilter, to: &out)
        if options.matchCase {
            JSONWriter.appendLiteral(#","url-filter-is-case-sensitive":true"#, to: &out)
        }
        if let resourceTypes = group.resourceTypes {
            appendResourceTypes(WebKitResourceTypes(resourceTypes), to: &out)
        }
        if let thirdParty {
            JSONWriter.appendLiteral(
                thirdParty ? #","load-type":["third-party"]"# : #","load-type":["first-party"]"#, to: &out)
        }
        switch group.loadContext {
        case .any: break
        case .topFrame: JSONWriter.appendLiteral(#","load-context":["top-frame"]"#, to: &out)
        case .childFrame: JSONWriter.appendLiteral(#","load-context":["child-frame"]"#, to: &out)
        }
        if let condition {
            out.append(UInt8(ascii: ","))
            JSONWriter.appendKey(condition.key, to: &out)
            JSONWriter.appendStringArray(condition.values, to: &out)
        }
        JSONWriter.appendLiteral(#"},"action":{"type":"#, to: &out)
        out.append(UInt8(ascii: "\""))
        action.withUTF8Buffer { out.append(contentsOf: $0) }
        JSONWriter.appendLiteral("\"}}", to: &out)
    }
}
