import TestSupport
import Testing

@testable import Converter

/// `HashSet64` stands in for `Set<UInt64>` in `HostRelationIndex`, and `HashIndex64` for
/// `[UInt64: Int]` in the converter's duplicate check: they must answer exactly as those would.
@Suite struct HashIndex64Tests {
    @Test func indexAgreesWithDictionaryOnSeededRandomKeys() {
        var generator = SeededGenerator(seed: 7)
        var reference: [UInt64: Int] = [:]
        var index = HashIndex64()
        for round in 0..<20_000 {
            let key: UInt64 = round % 5 == 0 ? generator.next() % 32 : (round % 997 == 0 ? .max : generator.next())
            let result = index.insert(key, value: round)
            let expected = reference[key] == nil
            if expected { reference[key] = round }
            #expect(result.inserted == expected)
            #expect(result.stored == reference[key])
        }
        #expect(index.count == reference.count)
        for (key, value) in reference {
            #expect(index[key] == value)
            #expect(index.contains(key))
        }
        for _ in 0..<5_000 {
            let probe = generator.next()
            if reference[probe] == nil {
                #expect(index[probe] == nil)
                #expect(!index.contains(probe))
            }
        }
        #expect(HashIndex64()[.max] == nil && HashIndex64()[0] == nil)
    }

    @Test func agreesWithSetOnSeededRandomValues() {
        var generator = SeededGenerator(seed: 42)
        var reference = Set<UInt64>()
        var set = HashSet64()
        for round in 0..<20_000 {
            // Small values collide often in the low bits; edge values exercise the empty-slot marker.
            let value: UInt64 = round % 7 == 0 ? generator.next() % 64 : (round % 1_001 == 0 ? .max : generator.next())
            set.insert(value)
            reference.insert(value)
        }
        #expect(set.count == reference.count)
        for value in reference { #expect(set.contains(value)) }
        var misses = 0
        for _ in 0..<20_000 {
            let probe = generator.next()
            if !reference.contains(probe) {
                #expect(!set.contains(probe))
                misses += 1
            }
        }
        #expect(misses > 19_000)
    }

    @Test func edgeValuesAndDuplicates() {
        var set = HashSet64()
        #expect(set.isEmpty)
        #expect(!set.contains(0))
        #expect(!set.contains(.max))
        for value: UInt64 in [0, .max, 0, .max, 1, .max - 1] { set.insert(value) }
        #expect(set.count == 4)
        for value: UInt64 in [0, 1, .max - 1, .max] { #expect(set.contains(value)) }
        #expect(!set.contains(2))
    }

    @Test func hostRelationsThroughTheIndex() {
        var index = HostRelationIndex()
        index.insert("ads.example.com")
        #expect(index.relates(to: "ads.example.com"))
        #expect(index.relates(to: "x.ads.example.com"))
        #expect(index.relates(to: "example.com"))
        #expect(!index.relates(to: "other.com"))
        #expect(!index.relates(to: "s.example.com"))
    }
}
