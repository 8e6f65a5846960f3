/// The WebKit a set is written for: which content-blocker keys the converter may emit. One
/// converter consults it; a target never changes what an older WebKit would read, because an
/// older WebKit ignores trigger keys it does not know, which silently widens the rule.
public enum ConversionTarget: String, Sendable, CaseIterable, Equatable {
    /// Safari 17/18 (iOS 17, 18; macOS 14, 15) and WebKitGTK 2.42+: page conditions judged
    /// against the top page (`if-domain`).
    case safari17 = "safari-17"
    /// Safari 26 (iOS 26, macOS 26) and WebKitGTK 2.50+: `$domain` judged against the frame
    /// that issues the request (`if-frame-url` / `unless-frame-url`), as ABP judges it.
    case safari26 = "safari-26"

    /// Network rules' `$domain` becomes a frame-URL condition (url-filter regexes over the URL of
    /// the frame that makes the load) instead of a top-page domain condition.
    var judgesDomainsInFrame: Bool { self == .safari26 }

    /// Hiding rules of entity domains (`amazon.*##sel`) name the entity's hosts through document
    /// url-filters built from the Public Suffix List (`EntityDomainFilters`). Exact on every WebKit,
    /// but it adds rules, so only the target that asks for the most exact set gets it.
    var namesEntityDomainsInHiding: Bool { self == .safari26 }

    /// `$third-party` of a rule that fixes the request's site becomes a frame-URL condition on that
    /// site instead of `load-type`, which compares with the top page (`FramePartyCondition`).
    var judgesPartyInFrame: Bool { self == .safari26 }

    /// Whether this target's conditions need registrable domains (`ConverterConfiguration.publicSuffixes`).
    public var needsPublicSuffixes: Bool { self == .safari26 }
}
