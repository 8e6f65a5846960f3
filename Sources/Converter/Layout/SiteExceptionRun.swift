/// The site exceptions that end one list, written as a single rule (and the page-pattern
/// exceptions, whose `if-top-url` no union of sites can carry, as one rule each after it).
///
/// Every site exception is `ignore-previous-rules` over every URL (`.*`) with an `if-domain`
/// condition, and a list carries them together at its end. Such a run cancels exactly what one
/// rule with the union of their `if-domain` sites cancels: each cancels the same earlier rules on
/// its own sites, and none of them is cancelled by another. WebKit keeps every rule that has a
/// condition as an action of its own and tests every action whose url-filter matches everything
/// on each load, so one rule instead of one per site exception is less work on every request and
/// on every compile (docs/device-cost.md).
struct SiteExceptionRun: Sendable {
    /// The `if-domain` sites (without `*`) in order of first appearance, each once.
    private var sites: [String] = []
    private var seen: Set<String> = []
    /// The one exception's own rule while the run holds a single exception (kept byte for byte).
    private var single: [UInt8]?
    private var count = 0
    /// The input lines of the exceptions in the run.
    private(set) var origins: [LineOrigin] = []
    /// Page-pattern exceptions' rules, in order, with their input lines.
    private(set) var patternRules: [(json: [UInt8], origin: LineOrigin?)] = []

    mutating func add(_ exception: SiteException, origin: LineOrigin?) {
        if exception.pagePattern {
            patternRules.append((exception.json, origin))
            return
        }
        count += 1
        single = count == 1 ? exception.json : nil
        if let origin { origins.append(origin) }
        for site in exception.pages where seen.insert(site).inserted {
            sites.append(site)
        }
    }

    /// The run as one rule, nil when it holds no exception.
    var rule: [UInt8]? {
        guard count > 0 else { return nil }
        return single ?? SiteExceptionBuilder.rule(sites: sites)
    }
}
