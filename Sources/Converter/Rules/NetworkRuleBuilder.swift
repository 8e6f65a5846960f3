/// Builds the WebKit rule objects for one parsed network filter: url-filter variants × request-type
/// groups, with party, domain and case conditions. Pure bytes in, JSON bytes out.
struct NetworkRuleBuilder {
    /// One WebKit rule and, for `$domain=a|~b.a`, the exception that must follow it.
    struct BuiltRule: Equatable {
        var json: [UInt8]
        var carveOut: [UInt8]?
    }

    struct Built: Equatable {
        var rules: [BuiltRule]
        var kind: NetworkRule.Kind
        var anchorHost: String?
        var condition: DomainCondition
    }

    /// The trigger fields a request-type set turns into.
    struct TypeGroup: Equatable {
        var resourceTypes: [String]?
        var loadContext: [String]?
    }

    static func build(_ filter: NetworkFilter) -> Result<Built, SkipReasonError> {
        func fail(_ reason: SkipReason) -> Result<Built, SkipReasonError> { .failure(SkipReasonError(reason: reason)) }
        let options = filter.options
        if options.siteException != nil { return fail(filter.isException ? .siteExceptionPattern : .unsupportedOption) }
        if filter.isException, options.important { return fail(.unsupportedOption) }
        if filter.isException, options.effectiveTypes.contains(.document), options.hasTypeOptions { return fail(.siteExceptionPattern) }

        let urlFilter: URLFilter
        switch URLFilterBuilder.build(pattern: filter.pattern) {
        case .success(let built): urlFilter = built
        case .failure(let error): return .failure(error)
        }
        let groups: [TypeGroup]
        switch typeGroups(options) {
        case .success(let built): groups = built
        case .failure(let error): return .failure(error)
        }
        let condition: DomainCondition
        switch DomainCondition.resolve(included: options.includedDomains, excluded: options.excludedDomains) {
        case .success(let resolved): condition = resolved
        case .failure(let error): return .failure(error)
        }
        let kind: NetworkRule.Kind = filter.isException ? .exception : (options.important ? .importantBlock : .block)
        if case .carvedOut = condition {
            if filter.isException { return fail(.mixedDomainException) }
            if options.important { return fail(.mixedDomainImportant) }
        }
        if !filter.isException, condition == .any, options.thirdParty == nil, groups == [TypeGroup()],
           urlFilter.variants.contains(URLFilterBuilder.matchAll) {
            return fail(.matchesEverything)
        }

        let action: StaticString = filter.isException ? "ignore-previous-rules" : "block"
        var rules: [BuiltRule] = []
        for variant in urlFilter.variants {
            for group in groups {
                switch condition {
                case .any:
                    rules.append(BuiltRule(json: ruleJSON(variant, options, group, domainKey: nil, domains: [], action: action)))
                case .only(let domains):
                    rules.append(BuiltRule(json: ruleJSON(variant, options, group, domainKey: "if-domain", domains: domains, action: action)))
                case .except(let domains):
                    rules.append(BuiltRule(json: ruleJSON(variant, options, group, domainKey: "unless-domain", domains: domains, action: action)))
                case .carvedOut(let included, let excluded):
                    rules.append(BuiltRule(
                        json: ruleJSON(variant, options, group, domainKey: "if-domain", domains: included, action: action),
                        carveOut: ruleJSON(variant, options, group, domainKey: "if-domain", domains: excluded, action: "ignore-previous-rules")))
                }
            }
        }
        return .success(Built(rules: rules, kind: kind, anchorHost: urlFilter.anchorHost, condition: condition))
    }

    /// ABP request types → WebKit `resource-type`/`load-context`. `$subdocument` is a document load in a
    /// child frame and `$document` one in the top frame, so they need their own trigger when mixed
    /// with other types. `$object` has no WebKit type and is dropped from mixed lists.
    static func typeGroups(_ options: NetworkOptions) -> Result<[TypeGroup], SkipReasonError> {
        if !options.hasTypeOptions { return .success([TypeGroup()]) }
        let all = options.effectiveTypes
        let types = all.subtracting(.object)
        if types.isEmpty { return .failure(SkipReasonError(reason: all.contains(.object) ? .objectOnly : .emptyTypeSet)) }
        var groups: [TypeGroup] = []
        var names: [String] = []
        if types.contains(.image) { names.append("image") }
        if types.contains(.stylesheet) { names.append("style-sheet") }
        if types.contains(.script) { names.append("script") }
        if types.contains(.font) { names.append("font") }
        if types.contains(.image) { names.append("svg-document") }
        if types.contains(.media) { names.append("media") }
        if types.contains(.popup) { names.append("popup") }
        if types.contains(.ping) { names.append("ping") }
        if types.contains(.xmlHTTPRequest) { names.append("fetch") }
        if types.contains(.websocket) { names.append("websocket") }
        if types.contains(.other) { names.append("other") }
        if !names.isEmpty { groups.append(TypeGroup(resourceTypes: names, loadContext: nil)) }
        let childFrame = types.contains(.subdocument)
        let topFrame = types.contains(.document)
        if childFrame && topFrame {
            groups.append(TypeGroup(resourceTypes: ["document"], loadContext: nil))
        } else if childFrame {
            groups.append(TypeGroup(resourceTypes: ["document"], loadContext: ["child-frame"]))
        } else if topFrame {
            groups.append(TypeGroup(resourceTypes: ["document"], loadContext: ["top-frame"]))
        }
        return .success(groups)
    }

    static func ruleJSON(_ urlFilter: [UInt8], _ options: NetworkOptions, _ group: TypeGroup,
                         domainKey: StaticString?, domains: [String], action: StaticString) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(urlFilter.count + 96)
        out.append(contentsOf: #"{"trigger":{"#.utf8)
        JSONWriter.appendKey("url-filter", to: &out)
        JSONWriter.appendString(urlFilter, to: &out)
        if options.matchCase {
            out.append(contentsOf: #","url-filter-is-case-sensitive":true"#.utf8)
        }
        if let resourceTypes = group.resourceTypes {
            out.append(UInt8(ascii: ","))
            JSONWriter.appendKey("resource-type", to: &out)
            JSONWriter.appendStringArray(resourceTypes, to: &out)
        }
        if let thirdParty = options.thirdParty {
            out.append(contentsOf: (thirdParty ? #","load-type":["third-party"]"# : #","load-type":["first-party"]"#).utf8)
        }
        if let loadContext = group.loadContext {
            out.append(UInt8(ascii: ","))
            JSONWriter.appendKey("load-context", to: &out)
            JSONWriter.appendStringArray(loadContext, to: &out)
        }
        if let domainKey {
            out.append(UInt8(ascii: ","))
            JSONWriter.appendKey(domainKey, to: &out)
            JSONWriter.appendStringArray(DomainCondition.starred(domains), to: &out)
        }
        out.append(contentsOf: #"},"action":{"type":"#.utf8)
        out.append(UInt8(ascii: "\""))
        action.withUTF8Buffer { out.append(contentsOf: $0) }
        out.append(contentsOf: "\"}}".utf8)
        return out
    }
}
