/// Why a filter line produced no WebKit rule. The raw value is the kebab-case name the operator sees
/// in the conversion report; every skipped line is counted under exactly one of these.
enum SkipReason: String, CaseIterable, Sendable {
    // Line-level problems: the bytes are not a usable filter.
    case invalidUTF8 = "invalid-utf8"
    case controlCharacters = "control-characters"
    case lineTooLong = "line-too-long"
    case duplicate
    case invalidFilter = "invalid-filter"
    // `$badfilter`: the directive itself, and the filters it cancels.
    case badfilter
    case cancelledByBadfilter = "cancelled-by-badfilter"
    // Regex rules outside WebKit's subset.
    case regexAlternation = "regex-alternation"
    case regexRepetition = "regex-repetition"
    case regexLookaround = "regex-lookaround"
    case regexBackreference = "regex-backreference"
    case regexCharacterClass = "regex-character-class"
    case regexWordBoundary = "regex-word-boundary"
    case regexAnchor = "regex-anchor"
    case regexUnsupported = "regex-unsupported"
    // Options WebKit cannot express.
    case optionCSP = "option-csp"
    case optionRedirect = "option-redirect"
    case optionRewrite = "option-rewrite"
    case optionRemoveparam = "option-removeparam"
    case optionSitekey = "option-sitekey"
    case unsupportedOption = "unsupported-option"
    case objectOnly = "object-only"
    case emptyTypeSet = "empty-type-set"
    /// Every site the rule names is an entity domain (`name.*`: that name under any public suffix),
    /// which no WebKit domain condition can name.
    case entityDomain = "entity-domain"
    /// A `~name.*` exclusion: without it the rule would hide or block on sites ABP leaves alone.
    case entityDomainExcluded = "entity-domain-excluded"
    /// A part, not a line (`skippedParts`): the `name.*` sites of a rule whose plain sites were converted.
    case entityDomainPart = "entity-domain-part"
    case invalidDomain = "invalid-domain"
    case nonASCII = "non-ascii"
    case mixedDomainException = "mixed-domain-exception"
    case mixedDomainNested = "mixed-domain-nested"
    case mixedDomainConflict = "mixed-domain-conflict"
    case mixedDomainImportant = "mixed-domain-important"
    /// `$document`/`$elemhide`/`$generichide` that carries other options (types, `$domain=` with a
    /// pattern, `$third-party`, …): neither `if-domain` nor `if-top-url` can say which pages it covers.
    case siteExceptionPattern = "site-exception-pattern"
    /// `$genericblock` on a URL pattern: the layout keeps generic blocks apart from site blocks
    /// by whole sites only, so no list order makes it cancel exactly the generic blocks on those pages.
    case genericblockPattern = "genericblock-pattern"
    /// `$third-party` whose `$domain` sites are all the request's own site, or `~third-party` with only
    /// other sites, on a rule that fixes the request's site: ABP never applies it (targets that judge
    /// the party in the frame).
    case partyContradictsDomain = "party-contradicts-domain"
    /// A block rule that would match every URL with no condition at all.
    case matchesEverything = "matches-everything"
    // Cosmetic filters.
    case snippet
    case extendedCSS = "extended-css"
    case htmlFilter = "html-filter"
    case invalidSelector = "invalid-selector"
    case mixedDomainCosmetic = "mixed-domain-cosmetic"
    case cosmeticExceptionInexact = "cosmetic-exception-inexact"
    case cancelledByException = "cancelled-by-exception"
    /// A hiding rule whose selector a `name.*#@#` exception cancels on sites no WebKit condition can carve out.
    case cancelledByEntityException = "cancelled-by-entity-exception"
    /// A part, not a line (`skippedParts`): the `~` sites of a `#@#` exception, dropped so that the
    /// exception cancels at least what ABP cancels (it then cancels on those sites too).
    case exceptionExclusionWidened = "exception-exclusion-widened"
    /// A line whose rules WebKit refused to compile (`FilterListSource.isolatedLines`): dropped so
    /// that the rest of its list can be published.
    case webkitRejected = "webkit-rejected"
}
