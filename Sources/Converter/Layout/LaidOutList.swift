/// One list as layout built it: rule objects in the order WebKit must see them.
struct LaidOutList: Sendable, Equatable {
    var id: String
    var family: ListFamily
    var rules: [[UInt8]]
    /// The input lines of each rule in `rules`.
    var origins = ListOrigins()
    /// Last run's bytes, published again because today's list only lacks removed rules (see `DeferredRemoval`).
    var kept: (bytes: [UInt8], rules: Int)?
    /// Runs in a row the list has kept old bytes.
    var deferredRuns = 0

    static func == (lhs: LaidOutList, rhs: LaidOutList) -> Bool {
        lhs.id == rhs.id && lhs.family == rhs.family && lhs.rules == rhs.rules && lhs.kept?.bytes == rhs.kept?.bytes
            && lhs.deferredRuns == rhs.deferredRuns
    }

    /// The JSON bytes to publish.
    var json: [UInt8] { kept?.bytes ?? JSONText.array(of: rules) }
    var ruleCount: Int { kept?.rules ?? rules.count }
}
