import Converter
import Foundation
import Testing

/// The real EasyList/EasyPrivacy days 2020-10-19 and -20, converted in-process as the publisher does
/// (day 20 with day 19's layout state and lists), paired by list id: the old and new bytes of every
/// list whose bytes changed.
struct RealListPairs {
    struct Pair {
        var id: String
        var old: [UInt8]
        var new: [UInt8]
    }

    var pairs: [Pair]
    /// Day 19's lists by id, for wrong-base cases.
    var day19: [String: [UInt8]]

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/lists")

    /// Converted once per test process.
    static let shared: Result<RealListPairs, Error> = Result { try RealListPairs() }

    static func load() throws -> RealListPairs { try shared.get() }

    private init() throws {
        let first = try ListConverter().convert(Self.sources("19"))
        let previous = Dictionary(uniqueKeysWithValues: first.lists.map { ($0.id, $0.json) })
        let second = try ListConverter().convert(
            Self.sources("20"), previousLayout: first.layoutState, previousLists: previous)
        pairs = second.lists.compactMap { list in
            guard let old = previous[list.id], old != list.json else { return nil }
            return Pair(id: list.id, old: old, new: list.json)
        }
        day19 = previous
    }

    static func sources(_ day: String) throws -> [FilterListSource] {
        try ["easylist", "easyprivacy"].map { id in
            let url = fixtures.appendingPathComponent("\(id)-2020-10-\(day).txt")
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw FixtureError("fixture \(url.path) is missing")
            }
            return FilterListSource(id: id, bytes: Array(data))
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The `dcz` tool the tests run (through `ChildRun`).
enum DCZBinary {
    /// The `dcz` executable built next to the test bundle.
    static func path() throws -> String {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("dcz")
                .path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("dcz").path,
            Bundle.main.bundleURL.appendingPathComponent("dcz").path,
        ]
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw FixtureError(
                "the dcz executable is not built next to the tests (looked at \(candidates)); run swift build first")
        }
        return path
    }
}

/// Byte equality as a plain Bool: `#expect(a == b)` on megabyte collections makes Swift Testing
/// compute a diff of the two for its message when they differ, which takes minutes.
func sameBytes(_ a: (some DataProtocol)?, _ b: some DataProtocol) -> Bool {
    guard let a else { return false }
    return a.count == b.count && a.elementsEqual(b)
}
