/// The kinds of lists a set is made of. A rule belongs to exactly one family; each family has its
/// own lists so that the site exceptions that end a list cancel exactly what they should, and so
/// that exceptions only need to be repeated where they can matter.
enum ListFamily: String, CaseIterable, Sendable, Comparable {
    /// Blocks anchored to a host (`||host^`, with or without page domains no `$genericblock`
    /// concerns) that need no navigation guards, on hosts no exception names (but see `FamilyLookup`). Exceptions anchored
    /// to unrelated hosts provably cannot affect them, so these lists carry few exceptions and stay
    /// unchanged when an exception for some other site is added.
    case networkHosts = "network-hosts"
    /// Host-anchored blocks that need the navigation guards (typeless `||host/path`): same
    /// exception pruning as `networkHosts`, but their lists end with the guards.
    case networkHostPaths = "network-host-paths"
    /// Blocks that may match a URL on any host: every exception can affect them. Also takes the
    /// site blocks and navigation blocks that need no list of their own (see `networkSites`,
    /// `networkNavigation`), so that only one family repeats every exception, and the host blocks
    /// that change with exceptions (contested hosts, edited page lists) or are new host-path
    /// blocks (see `FamilyLookup`): this list changes with most days' exception edits anyway.
    case networkPaths = "network-paths"
    /// Blocks limited to some pages (`if-domain`) that a `$genericblock` site exception also acts
    /// on: kept apart so it can end the other network lists without cancelling these. Site
    /// blocks on other pages go to `networkPaths`, which carries every exception anyway (a list
    /// of their own repeated about 1,900 exceptions and changed with each of them).
    case networkSites = "network-sites"
    /// Blocks that must keep matching page loads and popups (`NavigationPolicy.mustNotBeGuarded`)
    /// and are not host-anchored without conditions (those go to `networkHosts`, never guarded),
    /// when they cannot follow the guards in a `networkPaths` list: a carve-out unit, a page a
    /// `$genericblock` acts on, or a `$important` block that needs the guards.
    case networkNavigation = "network-navigation"
    /// `##sel` everywhere, and generic selectors with `#@#` exceptions (`unless-domain`).
    case cosmeticGeneric = "cosmetic-generic"
    /// `site##sel`: hiding limited to some sites' documents (see `CosmeticRuleBuilder`).
    case cosmeticSites = "cosmetic-sites"

    /// Families whose new rules wait in a small "recent" list before moving to stable lists in a
    /// batch. `networkPaths` has none: an added exception changes those lists most days anyway.
    var hasRecentList: Bool {
        switch self {
        case .networkHosts, .cosmeticGeneric, .cosmeticSites: return true
        // Site blocks: measured no better with one (their list changes with exceptions anyway).
        case .networkHostPaths, .networkPaths, .networkSites, .networkNavigation: return false
        }
    }

    var isNetwork: Bool {
        switch self {
        case .networkHosts, .networkHostPaths, .networkPaths, .networkSites, .networkNavigation: return true
        case .cosmeticGeneric, .cosmeticSites: return false
        }
    }

    /// Whether a site exception of `scope` must end this family's lists (see `SiteException.Scope`).
    func endsWith(_ scope: SiteException.Scope) -> Bool {
        switch scope {
        case .document: return true
        case .elementHiding: return !isNetwork
        case .genericHiding: return self == .cosmeticGeneric
        case .genericBlocking: return self == .networkHosts || self == .networkHostPaths || self == .networkPaths
        }
    }

    /// Whether the family's lists may hold `.needsGuard` rules and so end with the navigation guards.
    var mayNeedNavigationGuards: Bool {
        switch self {
        case .networkHostPaths, .networkPaths, .networkSites: return true
        case .networkHosts, .networkNavigation, .cosmeticGeneric, .cosmeticSites: return false
        }
    }

    /// Id of the stable list at `index`, e.g. `network-hosts-03`.
    func stableID(_ index: Int) -> String {
        rawValue + "-" + (index < 10 ? "0" : "") + String(index)
    }

    /// Id of the family's list of recently added rules.
    var recentID: String { rawValue + "-recent" }

    /// The family's place in `allCases`: publish order, and an index for per-family arrays.
    var position: Int {
        switch self {
        case .networkHosts: return 0
        case .networkHostPaths: return 1
        case .networkPaths: return 2
        case .networkSites: return 3
        case .networkNavigation: return 4
        case .cosmeticGeneric: return 5
        case .cosmeticSites: return 6
        }
    }

    static func < (lhs: ListFamily, rhs: ListFamily) -> Bool { lhs.position < rhs.position }
}
