import JSONBytes

/// `@@||site^$document` / `$elemhide` / `$generichide` / `$genericblock` → an `ignore-previous-rules`
/// over every URL (`.*`) on pages of that site (`if-domain: ["*site"]`). Layout's placement decides
/// what it cancels. Only `||host^` with no other option, or an empty pattern with `$domain=` sites
/// (no `~` exclusions), map exactly onto `if-domain`; another pattern with no other option maps onto
/// `if-top-url` (`pagePattern`).
struct SiteExceptionBuilder {
    struct Built {
        var scope: SiteException.Scope
        var json: [UInt8]
        var pages: [String]
        /// `$domain=` entity sites left out (the exception then cancels on the plain sites only).
        var skippedPart: SkipReason?
        /// See `SiteException.pagePattern`.
        var pagePattern = false
    }

    /// nil when the filter is not a site exception at all; a skip reason when it is one WebKit cannot express.
    static func build(_ filter: NetworkFilter) -> Result<Built, SkipReasonError>? {
        guard filter.isException else { return nil }
        let options = filter.options
        let scope: SiteException.Scope
        if let site = options.siteException {
            guard options.includedTypes.isEmpty, options.excludedTypes.isEmpty else {
                return .failure(SkipReasonError(reason: .siteExceptionPattern))
            }
            switch site {
            case .elementHiding: scope = .elementHiding
            case .genericHiding: scope = .genericHiding
            case .genericBlocking: scope = .genericBlocking
            }
        } else if options.includedTypes == .document, options.excludedTypes.isEmpty {
            scope = .document
        } else {
            return nil
        }
        guard options.thirdParty == nil, !options.matchCase, !options.important, options.excludedDomains.isEmpty else {
            return .failure(SkipReasonError(reason: .siteExceptionPattern))
        }
        // `@@||site^$scope` names the site by its pattern; `@@$scope,domain=a|b` (empty or `*` pattern)
        // by the page domains, which for the page itself is the same condition.
        var rawDomains: [ArraySlice<UInt8>]
        var skippedPart: SkipReason?
        if let host = plainHost(filter.pattern), options.includedDomains.isEmpty {
            rawDomains = [host]
        } else if filter.pattern.allSatisfy({ $0 == UInt8(ascii: "*") }), !options.includedDomains.isEmpty {
            switch EntityDomains.plainPart(included: options.includedDomains, excluded: []) {
            case .success(let plain): (rawDomains, skippedPart) = (plain.included, plain.skippedPart)
            case .failure(let error): return .failure(error)
            }
        } else {
            return pagePattern(filter, scope: scope)
        }
        var domains: [String] = []
        for raw in rawDomains {
            switch DomainNormalizer.normalize(raw) {
            case .domain(let normalized): domains.append(normalized)
            case .failure(let reason): return .failure(SkipReasonError(reason: reason))
            }
        }
        domains = Array(Set(domains)).sorted()
        return .success(Built(scope: scope, json: rule(sites: domains), pages: domains, skippedPart: skippedPart))
    }

    /// `@@pattern$document` (or `$elemhide`, `$generichide`) on a path rather than a whole site:
    /// `ignore-previous-rules` over every URL on the pages whose URL matches the pattern
    /// (`if-top-url`, one regex per url-filter variant). Exact for top pages; a frame is judged by
    /// its top page, as for every site exception. `$genericblock` stays skipped: the layout keeps
    /// generic blocks apart from site blocks only by whole sites.
    private static func pagePattern(_ filter: NetworkFilter, scope: SiteException.Scope) -> Result<
        Built, SkipReasonError
    > {
        guard filter.options.includedDomains.isEmpty, !filter.pattern.isEmpty else {
            return .failure(SkipReasonError(reason: .siteExceptionPattern))
        }
        if scope == .genericBlocking { return .failure(SkipReasonError(reason: .genericblockPattern)) }
        guard case .success(let urlFilter) = URLFilterBuilder.build(pattern: filter.pattern),
            !urlFilter.variants.contains(URLFilterBuilder.matchAll)
        else {
            return .failure(SkipReasonError(reason: .siteExceptionPattern))
        }
        var json: [UInt8] = Array(#"{"trigger":{"url-filter":".*","if-top-url":"#.utf8)
        JSONWriter.appendStringArray(urlFilter.variants.map { String(decoding: $0, as: UTF8.self) }, to: &json)
        json.append(contentsOf: #"},"action":{"type":"ignore-previous-rules"}}"#.utf8)
        return .success(
            Built(scope: scope, json: json, pages: urlFilter.anchorHost.map { [$0] } ?? [], pagePattern: true))
    }

    /// The rule of site exceptions on `sites` (normalized, without `*`): `ignore-previous-rules`
    /// over every URL on their pages.
    static func rule(sites: [String]) -> [UInt8] {
        var json: [UInt8] = Array(#"{"trigger":{"url-filter":".*","if-domain":"#.utf8)
        JSONWriter.appendStringArray(DomainCondition.starred(sites), to: &json)
        json.append(contentsOf: #"},"action":{"type":"ignore-previous-rules"}}"#.utf8)
        return json
    }

    /// The host of a `||host^` pattern (also `||host^|`), nil for anything else.
    static func plainHost(_ pattern: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        var start = pattern.startIndex
        var end = pattern.endIndex
        guard end - start >= 4, pattern[start] == UInt8(ascii: "|"), pattern[start + 1] == UInt8(ascii: "|") else {
            return nil
        }
        start += 2
        if pattern[end - 1] == UInt8(ascii: "|") { end -= 1 }
        guard end > start, pattern[end - 1] == UInt8(ascii: "^") else { return nil }
        end -= 1
        guard end > start else { return nil }
        for index in start..<end {
            let byte = pattern[index]
            let isHostByte =
                NetworkFilterParser.isAlphanumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_") || byte >= 0x80
            if !isHostByte { return nil }
        }
        return pattern[start..<end]
    }
}
