import Testing

@testable import Converter

/// A rule that did not change stays in a list whose bytes did not change.
@Suite struct StabilityTests {
    typealias F = LayoutFixture

    /// Ids of lists in `new` that `old` did not have with the same bytes.
    func changed(_ old: ListLayout.Result, _ new: ListLayout.Result) -> [String] {
        let before = Dictionary(uniqueKeysWithValues: old.lists.map { ($0.id, $0.rules) })
        return new.lists.filter { before[$0.id] != $0.rules }.map(\.id)
    }

    @Test func unchangedInputGivesIdenticalListsAndState() throws {
        let rules = F.mixed()
        let first = try F.layout(rules)
        let second = try F.layout(rules, previous: first.state)
        #expect(!second.isFresh)
        #expect(second.lists == first.lists)
        #expect(second.state.encoded() == first.state.encoded())
    }

    @Test func addedRulesNearTheTopChangeOnlyRecentLists() throws {
        var rules = F.mixed()
        let first = try F.layout(rules)
        #expect(first.lists.count >= 5)
        rules.network.insert(F.block("new-tracker.example"), at: 1)
        rules.cosmetic.insert(F.onSites(".new-box", ["fresh.example"]), at: 0)
        rules.cosmetic.insert(F.generic(".new-generic"), at: 0)
        let second = try F.layout(rules, previous: first.state)
        // The new host block waits in the host recent list: the path list, which every device
        // recompiles most days, does not grow with new hosts.
        #expect(changed(first, second) == ["network-hosts-recent", "cosmetic-generic-recent", "cosmetic-sites-recent"])
        #expect(
            try #require(second.lists.first { $0.id == "network-hosts-recent" }).rules.contains(
                F.block("new-tracker.example").json))
        #expect(Set(first.lists.map(\.id)).isSubset(of: Set(second.lists.map(\.id))))
        // And stays there.
        let third = try F.layout(rules, previous: second.state)
        #expect(!third.isFresh && third.lists == second.lists)
    }

    @Test func removedRuleChangesOnlyItsList() throws {
        var rules = F.mixed()
        let first = try F.layout(rules)
        let removed = rules.network.remove(at: 1234)
        let holder = try #require(first.lists.first { $0.rules.contains(removed.json) })
        let second = try F.layout(rules, previous: first.state)
        #expect(changed(first, second) == [holder.id])
        #expect(second.lists.count == first.lists.count)
        let removedSelector = rules.cosmetic.remove(at: 500)
        let third = try F.layout(rules, previous: second.state)
        #expect(changed(second, third).count == 1)
        #expect(changed(second, third).first?.hasPrefix("cosmetic-sites") == true)
        _ = removedSelector
    }

    @Test func anchoredExceptionChangesOnlyRelatedHostListsAndPathLists() throws {
        var rules = F.mixed()
        let first = try F.layout(rules)
        let target = "h42.example42.com"
        rules.network.append(F.exception(target))
        let second = try F.layout(rules, previous: first.state)
        let holder = try #require(
            first.lists.first { list in list.rules.contains { F.text($0).contains("\"\(target)\"") } })
        #expect(
            Set(changed(first, second))
                == Set([holder.id] + first.lists.filter { $0.family == .networkPaths }.map(\.id)))
    }

    @Test func newHostPathBlocksJoinThePathList() throws {
        var rules = F.mixed()
        var guarded = F.path("||young.example/ad/")
        guarded.anchorHost = "young.example"
        guarded.navigation = .needsGuard
        var old = F.path("||old.example/ad/")
        old.anchorHost = "old.example"
        old.navigation = .needsGuard
        rules.network.append(old)
        let first = try F.layout(rules)
        #expect(first.lists.first { $0.rules.contains(old.json) }?.family == .networkHostPaths)
        rules.network.append(guarded)
        let second = try F.layout(rules, previous: first.state)
        // The path list carries every exception and changes most days anyway; a host-path list
        // changed for one new rule would be recompiled whole.
        #expect(changed(first, second) == ["network-paths-00"])
        #expect(second.lists.first { $0.rules.contains(guarded.json) }?.id == "network-paths-00")
    }

    @Test func recentListMovesToOneStableListInOneBatch() throws {
        // Without a path list, new host blocks wait in the recent list.
        var rules = F.mixed(paths: 0)
        let first = try F.layout(rules, recentLimit: 50)
        for index in 0..<40 { rules.network.append(F.block("batch\(index).example")) }
        let second = try F.layout(rules, recentLimit: 50, previous: first.state)
        #expect(changed(first, second) == ["network-hosts-recent"])
        for index in 40..<60 { rules.network.append(F.block("batch\(index).example")) }
        let third = try F.layout(rules, recentLimit: 50, previous: second.state)
        let moved = changed(second, third)
        #expect(moved.count == 1 && moved[0].hasPrefix("network-hosts-") && moved[0] != "network-hosts-recent")
        #expect(!third.lists.contains { $0.id == "network-hosts-recent" })
        let holder = try #require(third.lists.first { $0.id == moved[0] })
        #expect((0..<60).allSatisfy { index in holder.rules.contains(F.block("batch\(index).example").json) })
    }

    @Test func recentListJoinsAStableListThatChangesAnyway() throws {
        var rules = F.mixed(paths: 0)
        let first = try F.layout(rules)
        rules.network.append(F.block("young.example"))
        let second = try F.layout(rules, previous: first.state)
        #expect(changed(first, second) == ["network-hosts-recent"])
        let removed = rules.network.remove(at: 10)
        let holder = try #require(second.lists.first { $0.rules.contains(removed.json) })
        var configuration = ConverterConfiguration()
        configuration.promotesRecentIntoChangedLists = true
        let third = try ListLayout(configuration: configuration).layOut(rules, previous: second.state)
        #expect(changed(second, third) == [holder.id])
        #expect(!third.lists.contains { $0.id == "network-hosts-recent" })
        #expect(try #require(third.lists.first { $0.id == holder.id }).rules.contains(F.block("young.example").json))
    }
}
