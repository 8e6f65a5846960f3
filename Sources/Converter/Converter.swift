import PublicSuffix

/// The converter's public surface: ABP filter-list bytes in, WebKit content-blocker lists and a
/// report out. Pure: no files, no sockets, no clocks, so the same input gives the same bytes.

/// One upstream filter list, as fetched.
public struct FilterListSource: Sendable, Equatable {
    /// Stable identifier of the upstream, e.g. `easylist`.
    public var id: String
    /// The raw bytes as downloaded (any encoding garbage is handled by the parser).
    public var bytes: [UInt8]
    /// 1-based numbers of lines WebKit rejected (found by the publish gate's isolation): each is
    /// skipped as `webkit-rejected` instead of converted, so the rest of the list can be published.
    public var isolatedLines: Set<Int>

    public init(id: String, bytes: [UInt8], isolatedLines: Set<Int> = []) {
        self.id = id
        self.bytes = bytes
        self.isolatedLines = isolatedLines
    }
}

/// Knobs of a conversion. Defaults follow WebKit's limits and the product's layout.
public struct ConverterConfiguration: Sendable, Equatable {
    /// The default `chunkSize`, which the origin's configuration and `convert` start from too.
    public static let defaultChunkSize = 30_000
    /// The default `maxLists`, which the origin's configuration starts from too.
    public static let defaultMaxLists = 16

    /// Most rules in one network list, exceptions included (clamped to WebKit's limit: `rulesPerList`).
    public var chunkSize: Int
    /// Most lists in one published set: every list costs a lookup on every page load.
    public var maxLists: Int
    /// How a refusal names the settings to raise: the flag or configuration key they came from.
    public var settingNames = SettingNames()
    /// Generic `##` selectors joined into one `css-display-none` rule.
    public var genericSelectorsPerRule: Int
    /// Rules a family's "recent" list collects before they move, in one batch, to a stable list.
    /// New rules wait there because young rules are the ones most often edited or removed again.
    public var recentListLimit: Int
    /// Runs in a row a stable list may keep its previous bytes when the only change is rules removed
    /// upstream (0: apply every removal at once). Batches removals so unchanged lists stay cached on
    /// devices; a removed rule keeps acting for at most this many runs.
    public var removalGraceRuns: Int
    /// Check every new list with `WebKitListValidator` before returning it (about as costly as the
    /// conversion itself; off only to measure the conversion alone).
    public var validatesLists = true
    /// Move a recent list into a stable list of its family that changes today anyway (see
    /// `ListLayout`); off keeps recent lists until they reach `recentListLimit`. Pays off together
    /// with `removalGraceRuns` (measured on the 2020-10 dailies: median 43.0 % → 40.9 % of gzip
    /// bytes new with grace 7, but 54.3 % → 58.5 % without grace, as young rules edited later then
    /// touch stable lists).
    public var promotesRecentIntoChangedLists = false
    /// The WebKit the lists are written for (see `ConversionTarget`).
    public var target = ConversionTarget.safari17
    /// Registrable domains, for conditions that must name a site exactly (a frame-relative party
    /// test, the hosts of an entity domain `name.*`). Nil: a rule that would need them keeps the conversion that does not.
    public var publicSuffixes: PublicSuffixList?

    public init(
        chunkSize: Int = defaultChunkSize, maxLists: Int = defaultMaxLists, genericSelectorsPerRule: Int = 50,
        recentListLimit: Int = 2_000,
        removalGraceRuns: Int = 0
    ) {
        self.removalGraceRuns = removalGraceRuns
        self.chunkSize = chunkSize
        self.maxLists = maxLists
        self.genericSelectorsPerRule = genericSelectorsPerRule
        self.recentListLimit = recentListLimit
    }

    /// Whether hiding rules keep their entity sites (see `entityDomainFilters`).
    var namesEntityDomainsInHiding: Bool { target.namesEntityDomainsInHiding && publicSuffixes != nil }

    /// The url-filters of entity domains in hiding rules, for targets that name them and when the
    /// public suffixes are given (nil: entity sites are left out of hiding rules, see `EntityDomains`).
    var entityDomainFilters: EntityDomainFilters? {
        guard namesEntityDomainsInHiding, let publicSuffixes else { return nil }
        return EntityDomainFilters(publicSuffixes: publicSuffixes)
    }

    /// The most rules a list gets: the chunk size, never above what WebKit compiles.
    public var rulesPerList: Int { min(chunkSize, WebKitLimits.rulesPerList) }

    /// Where `chunkSize` and `maxLists` were set, as a refusal should name them ("raise --chunk-size").
    public struct SettingNames: Sendable, Equatable {
        public var chunkSize: String
        public var maxLists: String

        public init(chunkSize: String = "the chunk size", maxLists: String = "the list limit") {
            self.chunkSize = chunkSize
            self.maxLists = maxLists
        }
    }
}

/// One WebKit content-blocker list, ready to publish.
public struct RuleList: Sendable, Equatable {
    /// Stable list identifier, e.g. `network-03` or `cosmetic-generic`; names the published file.
    public var id: String
    /// The JSON array bytes exactly as WebKit will compile them.
    public var json: [UInt8]
    /// Number of rules in the array.
    public var ruleCount: Int

    public init(id: String, json: [UInt8], ruleCount: Int) {
        self.id = id
        self.json = json
        self.ruleCount = ruleCount
    }
}

/// Everything one conversion produces.
public struct ConversionOutput: Sendable {
    /// Lists in publish order.
    public var lists: [RuleList]
    /// What was converted and what was skipped, by reason.
    public var report: ConversionReport
    /// Opaque layout state (JSON bytes) to hand back as `previousLayout` next time, so unchanged
    /// rules keep their lists and their files keep their bytes.
    public var layoutState: [UInt8]
    /// The input lines of every rule and the skipped lines (empty for outputs made by hand).
    public var provenance: ConversionProvenance

    public init(
        lists: [RuleList], report: ConversionReport, layoutState: [UInt8], provenance: ConversionProvenance = .none
    ) {
        self.lists = lists
        self.report = report
        self.layoutState = layoutState
        self.provenance = provenance
    }
}
