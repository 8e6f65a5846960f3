import Foundation
import TestSupport
import Testing

@testable import Converter

/// The fresh order: sort keys, packing by bytes, big families, section churn classes and hot sections first.
@Suite struct LayoutOrderTests {
    typealias F = LayoutFixture

    @Test func freshSortKeysPutAHostsLastLabelFirst() {
        func reversed(_ host: String) -> String {
            String(
                decoding: Array(FreshOrder(volatility: 1, churn: .calm, tail: .reversedHost(host)).bytes).dropFirst(2),
                as: UTF8.self)
        }
        #expect(reversed("ads.example.com") == "com.example.ads")
        #expect(reversed("localhost") == "localhost")
        #expect(reversed(".com") == "com.")
        #expect(reversed("com.") == ".com")
        #expect(reversed("a..b") == "b..a")
        #expect(reversed("") == "")
        #expect(Array(FreshOrder(volatility: Volatility.volatile, churn: .warm).bytes) == [0, 1])
        #expect(
            Array(FreshOrder(volatility: 1, churn: .hot, tail: .sites(["a.org", "b.net"])).bytes) == [1, 0]
                + Array("a.org,b.net".utf8))
        #expect(Array(FreshOrder(volatility: 1, churn: .hot, tail: .sites([])).bytes) == [1, 0])
        #expect(ListFamily.allCases.map(\.position) == Array(0..<ListFamily.allCases.count))
    }

    /// Keys are read from hosts and sites on demand; they must order exactly as their bytes would.
    @Test func freshOrderComparesAndPacksLikeItsBytes() {
        var generator = SeededGenerator(seed: 5)
        // Labels from a small alphabet (with `-`, which sorts below `.`) tie often.
        func name() -> String {
            let alphabet = Array("ab-.".utf8)
            return String(
                decoding: (0..<Int(generator.next() % 20)).map { _ in alphabet[Int(generator.next() % 4)] },
                as: UTF8.self)
        }
        func order() -> FreshOrder {
            let volatility = UInt8(generator.next() % 2)
            let churn = ChurnClass(rawValue: UInt8(generator.next() % 3))!
            switch generator.next() % 3 {
            case 0: return FreshOrder(volatility: volatility, churn: churn)
            case 1: return FreshOrder(volatility: volatility, churn: churn, tail: .reversedHost(name()))
            default:
                return FreshOrder(
                    volatility: volatility, churn: churn,
                    tail: .sites((0..<Int(generator.next() % 3)).map { _ in name() }))
            }
        }
        // The key as the documentation states it, built from the fields: volatility, churn class,
        // then the host with its labels last first, or the sites joined by commas.
        func reference(_ order: FreshOrder) -> [UInt8] {
            let tail: String
            switch order.tail {
            case .none: tail = ""
            case .reversedHost(let host):
                tail = host.split(separator: ".", omittingEmptySubsequences: false).reversed().joined(separator: ".")
            case .sites(let sites): tail = sites.joined(separator: ",")
            }
            return [order.volatility, order.churn.rawValue] + Array(tail.utf8)
        }
        func sign(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
            lhs == rhs ? 0 : (lhs.lexicographicallyPrecedes(rhs) ? -1 : 1)
        }
        // A few orders stated by hand.
        let calm = Volatility.calm
        let volatile = Volatility.volatile
        #expect(
            FreshOrder.compare(
                FreshOrder(volatility: volatile, churn: .calm), FreshOrder(volatility: calm, churn: .hot)) < 0)
        #expect(
            FreshOrder.compare(
                FreshOrder(volatility: calm, churn: .calm, tail: .reversedHost("x.a.org")),
                FreshOrder(volatility: calm, churn: .calm, tail: .reversedHost("a.com"))) > 0, "com.a before org.a.x")
        #expect(
            FreshOrder.compare(
                FreshOrder(volatility: calm, churn: .calm, tail: .reversedHost("ads.example.com")),
                FreshOrder(volatility: calm, churn: .calm, tail: .reversedHost("b.example.com"))) < 0)
        #expect(
            FreshOrder.compare(
                FreshOrder(volatility: calm, churn: .calm, tail: .sites(["a.org", "b.net"])),
                FreshOrder(volatility: calm, churn: .calm, tail: .sites(["a.org"]))) > 0)
        #expect(
            FreshOrder.compare(
                FreshOrder(volatility: calm, churn: .calm, tail: .sites(["a.org"])),
                FreshOrder(volatility: calm, churn: .calm, tail: .sites(["a.org"]))) == 0)
        for _ in 0..<3_000 {
            let lhs = order()
            let rhs = order()
            let left = Array(lhs.bytes)
            #expect(left == reference(lhs))
            let expected = sign(reference(lhs), reference(rhs))
            #expect(FreshOrder.compare(lhs, rhs) == expected)
            let padded = left + [UInt8](repeating: 0, count: max(0, 32 - left.count))
            let words = (0..<4).map { word in
                padded[(word * 8)..<(word * 8 + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            }
            let prefix = lhs.prefix.words
            #expect([prefix.0, prefix.1, prefix.2, prefix.3] == words)
            let prefixOrder = FreshOrder.Prefix.compare(lhs.prefix, rhs.prefix)
            #expect(prefixOrder == 0 || prefixOrder == expected, "a prefix never contradicts the whole key")
        }
    }

    @Test func freshOrderSortsBigFamiliesInHalvesToTheSameOrder() {
        var generator = SeededGenerator(seed: 11)
        // Short hosts from a small alphabet tie often, in the packed prefix and in full.
        func host() -> String {
            String(
                decoding: (0..<Int(generator.next() % 24)).map { _ in Array("ab.".utf8)[Int(generator.next() % 3)] },
                as: UTF8.self)
        }
        for count in [FamilyPlacer.parallelSortMinimum - 1, FamilyPlacer.parallelSortMinimum * 2 + 1] {
            let members = (0..<count).map {
                LayoutMember(
                    key: StableKey(value: UInt64($0)), family: .networkHosts, index: $0,
                    freshOrder: FreshOrder(
                        volatility: UInt8(generator.next() % 2), churn: .calm, tail: .reversedHost(host())))
            }
            let keys = members.map { Array($0.freshOrder.bytes) }
            let expected = members.indices.sorted { lhs, rhs in
                keys[lhs] == keys[rhs] ? lhs < rhs : keys[lhs].lexicographicallyPrecedes(keys[rhs])
            }
            #expect(FamilyPlacer.freshOrder(members) == expected)
        }
    }

    @Test func sectionCommentsGiveEachLineItsChurnClass() {
        let text =
            "[Adblock Plus 2.0]\r\n##.before-any-section\r\n! *** easylist:easylist/easylist_general_hide.txt ***\r\n##.calm-ad\r\n"
            + "! *** easylist:easylist/easylist_specific_hide.txt ***\r\nnews.example##.hot-ad  \r\n! a plain comment\r\n"
            + "||shared.example^\n! *** easylist:easylist/easylist_adservers.txt ***\n||ads.example^$third-party\n"
            + "||multi.example^$script,subdocument\n"
            + "! *** easylist:easylist_adult/adult_adservers.txt ***\n||adult.example^\n"
            + "! *** easylist:easyprivacy/easyprivacy_specific_international.txt ***\n/intl-tracker."
        let (rules, _, _) = RuleConverter().convert([FilterListSource(id: "easylist", bytes: Array(text.utf8))])
        let network = Dictionary(rules.network.map { ($0.key, $0.churn) }, uniquingKeysWith: { first, _ in first })
        let cosmetic = Dictionary(rules.cosmetic.map { ($0.key, $0.churn) }, uniquingKeysWith: { first, _ in first })
        #expect(cosmetic == ["##.before-any-section": .calm, "##.calm-ad": .calm, "news.example##.hot-ad": .hot])
        #expect(
            network == [
                "||shared.example^": .hot,  // after a plain comment, still in the hot section
                "||ads.example^$third-party": .warm,
                "||multi.example^$script,subdocument": .warm, "||multi.example^$script,subdocument#1": .warm,
                "||adult.example^": .calm, "/intl-tracker.": .calm,
            ])
        #expect(ChurnClass.of(section: "easylist:easyprivacy/easyprivacy_specific.txt") == .warm)
        #expect(ChurnClass.of(section: "custom rules") == .calm)
        // Where each parallel piece of parsing starts: the class after the lines before it.
        let lines = FilterLineReader.lineRanges(in: Array(text.utf8))
        #expect(
            SectionChurn.classes(at: [0, 3, 6, 9, lines.count], lines: lines, bytes: Array(text.utf8))
                == [.calm, .calm, .hot, .warm, .calm])
    }

    @Test func freshLayoutPutsHotSectionsFirstAndVolatileMembersInASmallFirstList() throws {
        // Hot-section hosts sort before calm ones, whatever their names.
        var rules = F.noGuards()
        rules.network = (0..<40).map { index in
            var rule = F.block("h\(index).example")
            if index >= 20 { rule.churn = .warm }
            return rule
        }
        let input = LayoutInput(rules)
        let placer = FamilyPlacer(
            family: .networkHosts, members: input.members[.networkHosts]!, capacity: 100, recentLimit: 10)
        let lists = placer.fresh(stableLists: 2)
        #expect(lists.map(\.members.count) == [20, 20])
        #expect(Set(lists[0].members) == Set(20..<40))

        // Volatile members (in host lists: blocks that must keep matching page loads, on hosts an
        // exception concerns, when they cannot follow a path list's guards) get the first list to themselves…
        var members = input.members[.networkHosts]!
        for index in [3, 33] { members[index].freshOrder.volatility = Volatility.volatile }
        let split = FamilyPlacer(family: .networkHosts, members: members, capacity: 100, recentLimit: 10)
            .fresh(stableLists: 3)
        #expect(split.map(\.members.count) == [2, 19, 19])
        #expect(Set(split[0].members) == [3, 33])
        // …unless the other lists would then outgrow the capacity.
        let tight = FamilyPlacer(family: .networkHosts, members: members, capacity: 14, recentLimit: 10)
            .fresh(stableLists: 3)
        #expect(tight.map(\.members.count) == [14, 13, 13])
    }
}
