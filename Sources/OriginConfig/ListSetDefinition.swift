import Converter
import Foundation

/// One published set: a name, the upstreams it converts, and the WebKit target it converts for.
/// Many sets can come from one origin (one for each WebKit generation, or a regional set).
package struct ListSetDefinition: Sendable, Equatable {
    /// `[a-z0-9-]`: names the set's URL path (`/sets/<name>/`) and its directories.
    package var name: String
    /// Upstream ids, in the order the set converts them.
    package var upstreams: [String]
    /// A conversion target name (`ConversionTargetName.known`).
    package var target: String

    /// `target` as the converter takes it (the configuration loader has checked the name).
    package var conversionTarget: ConversionTarget { ConversionTarget(rawValue: target) ?? .safari17 }

    package init(name: String, upstreams: [String], target: String = ConversionTargetName.oldest) {
        self.name = name
        self.upstreams = upstreams
        self.target = target
    }
}

/// The conversion targets a set may name, as the converter's `ConversionTarget` spells them, so
/// the configuration is checked before the converter runs; the converter owns what each means.
package enum ConversionTargetName {
    /// Today's output, for every WebKit the project supports.
    package static let oldest = ConversionTarget.safari17.rawValue
    /// Oldest first: a later name needs a newer WebKit.
    package static let known = ConversionTarget.allCases.map(\.rawValue)
}

extension Configuration {
    /// The name the implicit set takes when `config.json` has no `sets` key.
    package static let defaultSetName = "default"

    /// The sets this origin publishes: the configured ones, or (no `sets` key) one set of every
    /// upstream at the oldest target, published exactly where a single-set origin publishes.
    package var publishedSets: [ListSetDefinition] {
        sets ?? [ListSetDefinition(name: Self.defaultSetName, upstreams: upstreams.map(\.id))]
    }

    /// The set also served at the origin's root URLs (`/manifest.json`, `/lists/…`): the one named
    /// `default`, else the first.
    package var defaultSet: ListSetDefinition {
        let sets = publishedSets
        return sets.first { $0.name == Self.defaultSetName } ?? sets[0]
    }

    /// The upstreams `set` converts, in the set's order.
    package func upstreams(of set: ListSetDefinition) -> [Upstream] {
        set.upstreams.compactMap { id in upstreams.first { $0.id == id } }
    }
}

/// Reads `sets[]` strictly; upstream ids are checked against `upstreams` by `SetsValidation`.
struct StrictSetDefinition: Decodable {
    var value: ListSetDefinition

    init(from decoder: Decoder) throws {
        let object = try StrictObject(decoder)
        let path = ConfigKey.path(decoder.codingPath)
        let name: String = try object.require("name")
        let upstreams: [String] = try object.require("upstreams")
        let target: String = try object.value("target", default: ConversionTargetName.oldest)
        try object.rejectUnknownKeys()
        if name.isEmpty
            || !name.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d })
        {
            throw ConfigurationError(
                file: "", key: path + ".name",
                problem: "must be lowercase letters, digits and '-' (it names a URL path and directories)")
        }
        if upstreams.isEmpty {
            throw ConfigurationError(file: "", key: path + ".upstreams", problem: "needs at least one upstream id")
        }
        if !ConversionTargetName.known.contains(target) {
            throw ConfigurationError(
                file: "", key: path + ".target",
                problem: "must be one of \(ConversionTargetName.known.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        value = ListSetDefinition(name: name, upstreams: upstreams, target: target)
    }
}

enum SetsValidation {
    /// Names unique, at least one set, every upstream id configured and named once per set.
    static func check(_ sets: [ListSetDefinition], upstreams: [Configuration.Upstream]) throws {
        if sets.isEmpty {
            throw ConfigurationError(
                file: "", key: "sets",
                problem: "needs at least one set (or leave the key out for one set of every upstream)")
        }
        var names = Set<String>()
        let known = Set(upstreams.map(\.id))
        for (index, set) in sets.enumerated() {
            if !names.insert(set.name).inserted {
                throw ConfigurationError(file: "", key: "sets[\(index)].name", problem: "\"\(set.name)\" appears twice")
            }
            var seen = Set<String>()
            for id in set.upstreams {
                if !known.contains(id) {
                    throw ConfigurationError(
                        file: "", key: "sets[\(index)].upstreams",
                        problem:
                            "\"\(id)\" is no upstream id (configured: \(upstreams.map(\.id).joined(separator: ", ")))")
                }
                if !seen.insert(id).inserted {
                    throw ConfigurationError(
                        file: "", key: "sets[\(index)].upstreams", problem: "\"\(id)\" appears twice")
                }
            }
        }
    }
}
