/// One thing layout places in a list and remembers in its state: a network block or `$important`
/// block, or one cosmetic selector. Exceptions and site exceptions are not members: they are
/// derived for each list from the members it holds.
struct LayoutMember: Sendable {
    var key: StableKey
    var family: ListFamily
    /// Index of the rule in `ConvertedRules.network` or `.cosmetic` (the family says which).
    var index: Int
    /// Sort key of a fresh layout, so related rules start out in the same list (reversed host for
    /// host blocks, the domain set for site selectors); ties keep input order.
    var freshOrder: FreshOrder
}

/// One list of a family after placement; `members` index the family's member array, in list order.
struct PlacedList: Sendable, Equatable {
    var id: String
    var family: ListFamily
    var isRecent: Bool
    var members: [Int]
}
