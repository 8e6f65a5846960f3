import Foundation

/// Where each set lives. The default set keeps the origin's own directories (so an origin without
/// `sets` publishes and remembers exactly what it always did); every other set has
/// `<publicDir>/sets/<name>/` and `<stateDir>/sets/<name>/`, served under `/sets/<name>/`.
extension ResolvedConfiguration {
    /// The URL directory of the non-default sets (no leading slash, as request names are).
    package static let setsDirectory = "sets/"

    package func publicDirectory(of set: ListSetDefinition) -> String {
        isDefault(set) ? publicDirectory : publicDirectory + "/" + Self.setsDirectory + set.name
    }

    package func stateDirectory(of set: ListSetDefinition) -> String {
        isDefault(set) ? stateDirectory : stateDirectory + "/" + Self.setsDirectory + set.name
    }

    package func isDefault(_ set: ListSetDefinition) -> Bool {
        set.name == configuration.defaultSet.name
    }

    /// The sets other than the default one, in configuration order.
    package var otherSets: [ListSetDefinition] {
        configuration.publishedSets.filter { !isDefault($0) }
    }
}
