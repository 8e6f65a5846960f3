import Foundation

/// The configuration with every relative path resolved against the config file's directory.
package struct ResolvedConfiguration: Sendable {
    package var configuration: Configuration
    package var baseDirectory: String
    package var publicDirectory: String
    package var stateDirectory: String

    package init(configuration: Configuration, baseDirectory: String) {
        func resolve(_ path: String) -> String {
            path.hasPrefix("/")
                ? path : (URL(fileURLWithPath: baseDirectory).appendingPathComponent(path).standardizedFileURL.path)
        }
        var resolved = configuration
        for index in resolved.upstreams.indices {
            if let snapshot = resolved.upstreams[index].snapshot {
                resolved.upstreams[index].snapshot = resolve(snapshot)
            }
            if let path = resolved.upstreams[index].path { resolved.upstreams[index].path = resolve(path) }
        }
        self.configuration = resolved
        self.baseDirectory = baseDirectory
        publicDirectory = resolve(configuration.publicDir)
        stateDirectory = resolve(configuration.stateDir)
    }

    /// Loads `config.json` strictly and resolves its paths.
    package static func load(path: String) throws -> ResolvedConfiguration {
        let (configuration, base) = try ConfigurationLoader.load(path: path)
        return ResolvedConfiguration(configuration: configuration, baseDirectory: base)
    }
}
