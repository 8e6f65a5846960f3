/// The hand-off from rule conversion (`Rules/`) to layout (`Layout/`): every WebKit rule the
/// input produced, serialized, and tagged with what layout needs to place it in lists.
/// Rule conversion decides *what* WebKit rules express each ABP line; layout decides *where*
/// they go so that lists stay correct (exceptions after what they cancel) and stable day to day.
struct ConvertedRules: Sendable, Equatable {
    /// Network rules in input order.
    var network: [NetworkRule] = []
    /// Element-hiding selectors after `#@#` exceptions were folded in.
    var cosmetic: [CosmeticSelector] = []
    /// Whether some selector is limited to an entity site (`name.*`, see `EntityDomainFilters`).
    var hasEntitySites: Bool {
        cosmetic.contains { selector in
            guard case .only(let sites) = selector.domains else { return false }
            return sites.contains { EntityDomains.name(ofSite: $0) != nil }
        }
    }
    /// Rules that switch blocking or hiding off for whole sites, placed by layout at the end of
    /// the lists they must cancel.
    var siteExceptions: [SiteException] = []
    /// The input line of each rule above, by the same index (empty for rules made by hand in tests).
    var origins = RuleOrigins()
    /// WebKit applies a trigger without `resource-type` to top-level page loads and popups too, which
    /// ABP (and adblock-rust, except for pure `||host^` filters) never blocks for a filter without type
    /// options (confirmed in a WebView; bench-out/semantic-disagreements.txt). These
    /// `ignore-previous-rules` objects cancel exactly those matches of earlier rules in their list.
    /// Layout: put them in every list that holds `.needsGuard` rules, after those rules, their exceptions
    /// and `$important` blocks; `.mustNotBeGuarded` rules may share the list only after the guards
    /// (with any exception meant for them after them too).
    var navigationGuards: [[UInt8]] = [
        Array(
            #"{"trigger":{"url-filter":".*","resource-type":["document"],"load-context":["top-frame"]},"action":{"type":"ignore-previous-rules"}}"#
                .utf8),
        Array(
            #"{"trigger":{"url-filter":".*","resource-type":["popup"]},"action":{"type":"ignore-previous-rules"}}"#.utf8
        ),
    ]
}

/// How a network rule relates to top-level page loads and popups (see `ConvertedRules.navigationGuards`).
enum NavigationPolicy: Sendable, Equatable {
    /// Its `resource-type` excludes page loads and popups, or it is an exception: the guards change nothing.
    case unaffected
    /// No `resource-type`, and the ABP filter would not block page loads or popups: the list must end with the guards.
    case needsGuard
    /// Must keep matching page loads or popups: `$document`/`$popup` blocks, and pure `||host^` filters
    /// without types or path (adblock-rust blocks navigations to such hosts). Never before a guard.
    case mustNotBeGuarded
}

/// One WebKit network rule.
struct NetworkRule: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// `action.type == "block"` (or other non-exception actions).
        case block
        /// `$important`: must come after every exception in its list, because ABP lets it win.
        case importantBlock
        /// `@@` exception: `ignore-previous-rules`, which only cancels earlier rules of the same list.
        case exception
    }

    /// Identity from day to day: the ABP line text, with `#n` appended when one line yields several rules.
    var key: String
    var kind: Kind
    /// One serialized rule object: `{"trigger":{...},"action":{...}}`.
    var json: [UInt8]
    /// Lowercased host the url-filter is anchored to (`||host^` rules), or nil when the rule could
    /// match a URL on any host. Lets layout prove that an exception cannot affect a chunk.
    var anchorHost: String?
    /// Which input list the line came from.
    var sourceID: String
    /// A second serialized rule (`ignore-previous-rules`) that carves the excluded subdomains out
    /// of this block, for ABP `$domain=a.com|~b.a.com`, which one WebKit trigger cannot express.
    /// Layout must keep the pair as one unit: emit `json`, then `carveOut` immediately after it,
    /// in the same list, and place the unit before every other rule of that list (carve-out units
    /// first, in any order among themselves), so the exception can cancel nothing but its own block.
    /// The converter guarantees carve-out units never cancel each other (it skips conflicting ones
    /// as `mixed-domain-conflict`). A unit counts as two WebKit rules. Only `.block` rules carry one.
    var carveOut: [UInt8]? = nil
    /// Whether the list holding this rule must, may or must not end with `ConvertedRules.navigationGuards`.
    var navigation: NavigationPolicy = .unaffected
    /// The trigger's page condition, as written in `json`: `if-domain` sites without `*` or
    /// `unless-domain` sites. Layout reads these rather than parsing the JSON again.
    var pageCondition: PageCondition = .any
    /// Its page condition is a frame condition (`if-frame-url` / `unless-frame-url`, `safari-26`):
    /// it acts in frames of its sites on any top page, so any site exception may concern it.
    var judgedInFrame = false
    /// The trigger's `resource-type` (nil: none, so every type), as written in `json`.
    var resourceTypes: WebKitResourceTypes?
    /// How often upstream edits the section the line stands in (leads a fresh layout's sort order).
    var churn: ChurnClass = .calm

    /// `if-domain` or `unless-domain` of a trigger.
    enum PageCondition: Sendable, Equatable {
        case any
        case only([String])
        case except([String])

        /// The `if-domain` sites (nil: the rule may act on any page, `unless-domain` included).
        var ifDomain: [String]? {
            if case .only(let domains) = self { return domains }
            return nil
        }
    }
}

/// One element-hiding selector with the sites it applies to.
struct CosmeticSelector: Sendable, Equatable, Hashable {
    enum Domains: Sendable, Equatable, Hashable {
        /// Everywhere (generic `##sel`).
        case everywhere
        /// Only on these sites and their subdomains (lowercase punycode, sorted, without `*`).
        case only([String])
        /// Everywhere except these sites (generic selector with `#@#` exceptions folded in).
        case except([String])
    }

    /// Identity from day to day: the ABP line text.
    var key: String
    /// The CSS selector, exactly as WebKit should get it.
    var selector: String
    var domains: Domains
    var sourceID: String
    /// How often upstream edits the section the line stands in (leads a fresh layout's sort order).
    var churn: ChurnClass = .calm
}

/// A site-wide exception: `ignore-previous-rules` with `url-filter: ".*"` and `if-domain`.
struct SiteException: Sendable, Equatable {
    enum Scope: Sendable, Equatable {
        /// `@@||site^$document`: everything off on the site; ends every list.
        case document
        /// `$elemhide`: all hiding off; ends every cosmetic list.
        case elementHiding
        /// `$generichide`: generic hiding off; ends every list of generic hiding rules.
        case genericHiding
        /// `$genericblock`: generic network blocks off; ends the lists that hold only blocks without domain conditions.
        case genericBlocking
    }

    var key: String
    var scope: Scope
    /// One serialized rule object.
    var json: [UInt8]
    var sourceID: String
    /// Its `if-domain` sites without the `*` (never empty), as written in `json`; for a
    /// `pagePattern` exception, the host its pattern names (empty: any page).
    var pages: [String]
    /// An exception on the pages whose URL matches a pattern (`if-top-url`), not on whole sites:
    /// it stays a rule of its own (`SiteExceptionRun`).
    var pagePattern = false
}

/// Where the rules of `ConvertedRules` came from: one line each, by index, plus the lines merged
/// into a rule (later duplicates of its line, `#@#` exceptions folded into a hiding rule).
struct RuleOrigins: Sendable, Equatable {
    var network: [LineOrigin] = []
    var cosmetic: [LineOrigin] = []
    var siteExceptions: [LineOrigin] = []
    /// Extra lines by the origin of the rule they joined.
    var merged: [LineOrigin: [LineOrigin]] = [:]
}
