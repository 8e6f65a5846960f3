/// Decides which list of one family each member goes to.
///
/// Incremental placement is what keeps daily updates cheap: a member that was in list L stays in
/// L, in the same position relative to the other survivors; new members go to the family's
/// "recent" list (or, for families without one, all into a single list with room), and when the
/// recent list outgrows `recentLimit` it is moved into one stable list in a single batch. A removed
/// member changes only the list it was in; nothing is rebalanced because of it.
struct FamilyPlacer: Sendable {
    var family: ListFamily
    /// Members of this family, in input order.
    var members: [LayoutMember]
    /// Most members one list may hold (the chunk size less what every list of the family carries).
    var capacity: Int
    /// Recent-list size that triggers moving its members into a stable list.
    var recentLimit: Int

    /// A layout that ignores history: members sorted by `freshOrder`, split evenly over `stableLists`
    /// lists, except that the volatile members (`freshOrder` starting with `Volatility.volatile`)
    /// get the first list to themselves when they are fewer than an even share: edits and
    /// exceptions then change that small list rather than one of the big ones.
    func fresh(stableLists: Int) -> [PlacedList] {
        guard !members.isEmpty else { return [] }
        let order = FamilyPlacer.freshOrder(members)
        let count = max(1, stableLists)
        let volatile = members.reduce(0) { $0 + ($1.freshOrder.isVolatile ? 1 : 0) }
        var sizes: [Int]
        if count > 1, volatile > 0, volatile < order.count / count, order.count - volatile <= (count - 1) * capacity {
            let rest = order.count - volatile
            let restCount = count - 1
            sizes = [volatile] + (0..<restCount).map { rest / restCount + ($0 < rest % restCount ? 1 : 0) }
        } else {
            sizes = (0..<count).map { order.count / count + ($0 < order.count % count ? 1 : 0) }
        }
        var lists: [PlacedList] = []
        var start = 0
        for index in 0..<count {
            let size = sizes[index]
            guard size > 0 else { continue }
            lists.append(
                PlacedList(
                    id: family.stableID(index), family: family, isRecent: false,
                    members: Array(order[start..<start + size])))
            start += size
        }
        return lists
    }

    /// Keeps every surviving member where `previous` had it; see the type's documentation.
    func incremental(previous: [LayoutState.List]) -> [PlacedList] {
        var slots = previous.map { PlacedList(id: $0.id, family: family, isRecent: $0.isRecent, members: []) }
        var location: [StableKey: (slot: Int, rank: Int)] = [:]
        location.reserveCapacity(previous.reduce(0) { $0 + $1.members.count })
        for (slot, list) in previous.enumerated() {
            for (rank, key) in list.members.enumerated() where location[key] == nil {
                location[key] = (slot, rank)
            }
        }
        var ranked = [[(rank: Int, member: Int)]](repeating: [], count: slots.count)
        var newcomers: [Int] = []
        for (index, member) in members.enumerated() {
            if let found = location[member.key] {
                ranked[found.slot].append((found.rank, index))
            } else {
                newcomers.append(index)
            }
        }
        for slot in slots.indices {
            // Members arrive in input order, so sorting by (rank, input index) is deterministic.
            slots[slot].members = ranked[slot].sorted { ($0.rank, $0.member) < ($1.rank, $1.member) }.map(\.member)
        }
        slots.removeAll { $0.members.isEmpty }
        if !newcomers.isEmpty {
            if family.hasRecentList {
                let slot = recentSlot(&slots)
                slots[slot].members += newcomers
            } else {
                let slot = stableSlot(withRoomFor: newcomers.count, in: &slots)
                slots[slot].members += newcomers
            }
        }
        if let recent = slots.firstIndex(where: \.isRecent), slots[recent].members.count > recentLimit {
            let batch = slots[recent].members
            slots.remove(at: recent)
            let slot = stableSlot(withRoomFor: batch.count, in: &slots)
            slots[slot].members += batch
        }
        return ordered(slots)
    }

    /// Member indices sorted by `freshOrder`, then input order. Compares a packed 32-byte prefix
    /// first, so the full keys are only read on a tie. A big family is sorted in two halves on two
    /// cores and merged; the order is total (input order breaks ties), so the result is the same.
    static func freshOrder(_ members: [LayoutMember]) -> [Int] {
        return members.withUnsafeBufferPointer { members -> [Int] in
            func precedes(_ lhs: SortEntry, _ rhs: SortEntry) -> Bool {
                var order = FreshOrder.Prefix.compare(lhs.prefix, rhs.prefix)
                // Equal 32-byte prefixes (rare): the whole keys.
                if order == 0 {
                    order = FreshOrder.compare(members[lhs.index].freshOrder, members[rhs.index].freshOrder)
                }
                return order != 0 ? order < 0 : lhs.index < rhs.index
            }
            func sorted(_ range: Range<Int>) -> [SortEntry] {
                var entries = range.map { index in SortEntry(prefix: members[index].freshOrder.prefix, index: index) }
                entries.sort(by: precedes)
                return entries
            }
            guard members.count >= parallelSortMinimum else { return sorted(0..<members.count).map(\.index) }
            let middle = members.count / 2
            let halves = Parallel.map(2) { $0 == 0 ? sorted(0..<middle) : sorted(middle..<members.count) }
            var order: [Int] = []
            order.reserveCapacity(members.count)
            var left = 0
            var right = 0
            while left < halves[0].count, right < halves[1].count {
                if precedes(halves[1][right], halves[0][left]) {
                    order.append(halves[1][right].index)
                    right += 1
                } else {
                    order.append(halves[0][left].index)
                    left += 1
                }
            }
            order += halves[0][left...].map(\.index)
            order += halves[1][right...].map(\.index)
            return order
        }
    }

    /// Families at least this big are sorted on two cores.
    static let parallelSortMinimum = 8_192

    private struct SortEntry {
        var prefix: FreshOrder.Prefix
        var index: Int
    }

    private func recentSlot(_ slots: inout [PlacedList]) -> Int {
        if let existing = slots.firstIndex(where: \.isRecent) { return existing }
        slots.append(PlacedList(id: family.recentID, family: family, isRecent: true, members: []))
        return slots.count - 1
    }

    /// The smallest stable list that can take `count` more members, or a new list when none can.
    private func stableSlot(withRoomFor count: Int, in slots: inout [PlacedList]) -> Int {
        var best: Int?
        for slot in slots.indices where !slots[slot].isRecent && slots[slot].members.count + count <= capacity {
            if best == nil || slots[slot].members.count < slots[best!].members.count { best = slot }
        }
        if let best { return best }
        let used = Set(slots.map(\.id))
        var index = 0
        while used.contains(family.stableID(index)) { index += 1 }
        slots.append(PlacedList(id: family.stableID(index), family: family, isRecent: false, members: []))
        return slots.count - 1
    }

    /// Stable lists by id, the recent list last: publish order never depends on history.
    private func ordered(_ slots: [PlacedList]) -> [PlacedList] {
        slots.sorted { lhs, rhs in
            if lhs.isRecent != rhs.isRecent { return !lhs.isRecent }
            return lhs.id < rhs.id
        }
    }
}
