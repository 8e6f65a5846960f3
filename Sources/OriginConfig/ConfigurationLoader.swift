import Foundation

/// A config problem, naming the file and the key so the operator can fix it.
package struct ConfigurationError: Error, CustomStringConvertible, Equatable {
    package var file: String
    /// Dotted path of the offending key, e.g. `http.maxHeaderBytes`; nil for whole-file problems.
    package var key: String?
    package var problem: String

    package var description: String {
        if let key { return "\(file): \(key): \(problem)" }
        return "\(file): \(problem)"
    }
}

/// Reads `config.json` strictly: unknown keys and wrong types are errors, missing keys take defaults.
package enum ConfigurationLoader {
    package static func load(path: String) throws -> (configuration: Configuration, baseDirectory: String) {
        guard let data = FileManager.default.contents(atPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw ConfigurationError(
                file: path, key: nil,
                problem: exists ? "cannot be read (check permissions)" : "no such file; pass --config PATH or create it"
            )
        }
        let configuration = try decode(data, file: path)
        let base = (URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent().path)
        return (configuration, base)
    }

    package static func decode(_ data: Data, file: String) throws -> Configuration {
        do {
            let decoder = JSONDecoder()
            return try decoder.decode(StrictConfiguration.self, from: data).value
        } catch let error as ConfigurationError {
            throw ConfigurationError(file: file, key: error.key, problem: error.problem)
        } catch let error as DecodingError {
            throw describe(error, file: file)
        } catch {
            throw ConfigurationError(file: file, key: nil, problem: "\(error)")
        }
    }

    private static func describe(_ error: DecodingError, file: String) -> ConfigurationError {
        func path(_ codingPath: [CodingKey]) -> String? {
            codingPath.isEmpty ? nil : ConfigKey.path(codingPath)
        }
        switch error {
        case .typeMismatch(let type, let context):
            return ConfigurationError(file: file, key: path(context.codingPath), problem: "expected \(typeName(type))")
        case .valueNotFound(let type, let context):
            return ConfigurationError(
                file: file, key: path(context.codingPath), problem: "expected \(typeName(type)), found null")
        case .keyNotFound(let key, let context):
            return ConfigurationError(
                file: file, key: path(context.codingPath + [key]), problem: "required key is missing")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return ConfigurationError(
                    file: file, key: nil,
                    problem: "not valid JSON (\(context.underlyingError.map { "\($0)" } ?? context.debugDescription))")
            }
            return ConfigurationError(file: file, key: path(context.codingPath), problem: context.debugDescription)
        @unknown default:
            return ConfigurationError(file: file, key: nil, problem: "\(error)")
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type: return "an integer"
        case is Double.Type: return "a number"
        case is Bool.Type: return "true or false"
        case is String.Type: return "a string"
        default:
            let name = "\(type)"
            if name.hasPrefix("Array") { return "an array" }
            return "an object"
        }
    }
}

// MARK: - Strict decoding

/// Any JSON object key, so unknown keys can be detected and named.
package struct ConfigKey: CodingKey {
    package var stringValue: String
    package var intValue: Int? { nil }
    package init(_ string: String) { stringValue = string }
    package init?(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { return nil }

    /// A coding path as the operator writes it: `upstreams[0].url`.
    static func path(_ codingPath: [CodingKey]) -> String {
        codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            .replacingOccurrences(of: ".[", with: "[")
    }
}

/// A keyed reader that remembers which keys it was asked for and rejects the rest: the keys a
/// section allows are the ones its reader reads, written once, so a new field cannot be read
/// without being allowed or allowed without being read. Each reader ends with `rejectUnknownKeys()`.
package final class StrictObject {
    let container: KeyedDecodingContainer<ConfigKey>
    private let codingPath: [CodingKey]
    /// Every key asked for so far, in the order asked (the error message lists them so).
    private(set) var asked: [String] = []

    package init(_ decoder: Decoder) throws {
        container = try decoder.container(keyedBy: ConfigKey.self)
        codingPath = decoder.codingPath
    }

    /// Throws for the first key in the object that no read asked for, naming the allowed ones.
    func rejectUnknownKeys() throws {
        let allowed = Set(asked)
        for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue })
        where !allowed.contains(key.stringValue) {
            throw ConfigurationError(
                file: "", key: ConfigKey.path(codingPath + [key]),
                problem: "unknown key (allowed here: \(asked.joined(separator: ", ")))")
        }
    }

    private func ask(_ key: String) -> ConfigKey {
        if !asked.contains(key) { asked.append(key) }
        return ConfigKey(key)
    }

    func optional<T: Decodable>(_ key: String, _ type: T.Type = T.self) throws -> T? {
        try container.decodeIfPresent(T.self, forKey: ask(key))
    }

    package func value<T: Decodable>(_ key: String, default fallback: T) throws -> T {
        try optional(key) ?? fallback
    }

    func require<T: Decodable>(_ key: String) throws -> T {
        try container.decode(T.self, forKey: ask(key))
    }

    /// A number that must be positive (or zero when allowed).
    func positive<T: Decodable & Comparable & Numeric>(_ key: String, default fallback: T, allowZero: Bool = false)
        throws -> T
    {
        let number: T = try value(key, default: fallback)
        if number < 0 || (!allowZero && number == 0) {
            throw ConfigurationError(
                file: "", key: ConfigKey.path(container.codingPath + [ConfigKey(key)]),
                problem: allowZero ? "must be zero or more" : "must be more than zero")
        }
        return number
    }
}

private struct StrictConfiguration: Decodable {
    var value = Configuration()

    init(from decoder: Decoder) throws {
        let object = try StrictObject(decoder)
        value.listen = try object.value("listen", default: StrictSection(value.listen)).value
        value.publicDir = try object.value("publicDir", default: value.publicDir)
        value.stateDir = try object.value("stateDir", default: value.stateDir)
        if let upstreams = try object.optional("upstreams", [StrictUpstream].self) {
            value.upstreams = upstreams.map(\.value)
            var seen = Set<String>()
            for upstream in value.upstreams where !seen.insert(upstream.id).inserted {
                throw ConfigurationError(file: "", key: "upstreams", problem: "id \"\(upstream.id)\" appears twice")
            }
            if value.upstreams.isEmpty {
                throw ConfigurationError(file: "", key: "upstreams", problem: "needs at least one upstream")
            }
        }
        value.refresh = try object.value("refresh", default: StrictSection(value.refresh)).value
        value.fetch = try object.value("fetch", default: StrictSection(value.fetch)).value
        value.conversion = try object.value("conversion", default: StrictSection(value.conversion)).value
        value.publish = try object.value("publish", default: StrictSection(value.publish)).value
        value.http = try object.value("http", default: StrictSection(value.http)).value
        value.follow = try object.optional("follow", StrictFollow.self)?.value
        if let sets = try object.optional("sets", [StrictSetDefinition].self) {
            value.sets = sets.map(\.value)
            try SetsValidation.check(sets.map(\.value), upstreams: value.upstreams)
        }
        value.unprotectedSites = try UnprotectedSites.normalized(
            object.value("unprotectedSites", default: [String]()), key: "unprotectedSites")
        try object.rejectUnknownKeys()
    }
}

/// A section of optional keys, each with its default: it starts from `init()`, reads its keys with
/// `read(_:)` (checking them as it goes), and `StrictSection` rejects every key it did not read.
protocol StrictlyReadSection {
    init()
    mutating func read(_ object: StrictObject) throws
}

/// Decodes any `StrictlyReadSection` from its object; `init(_:)` holds the default for a missing one.
struct StrictSection<Section: StrictlyReadSection>: Decodable {
    var value: Section
    init(_ value: Section) { self.value = value }
    init(from decoder: Decoder) throws {
        let object = try StrictObject(decoder)
        value = Section()
        try value.read(object)
        try object.rejectUnknownKeys()
    }
}

extension Configuration.Listen: StrictlyReadSection {
    mutating func read(_ object: StrictObject) throws {
        address = try object.value("address", default: address)
        port = try object.value("port", default: port)
        if !ConfigurationLimits.port.contains(port) {
            throw ConfigurationError(
                file: "", key: "listen.port",
                problem:
                    "must be \(ConfigurationLimits.port.lowerBound)...\(ConfigurationLimits.port.upperBound) (0 picks a free port)"
            )
        }
    }
}

private struct StrictUpstream: Decodable {
    var value: Configuration.Upstream
    init(from decoder: Decoder) throws {
        let object = try StrictObject(decoder)
        let id: String = try object.require("id")
        let url: String? = try object.optional("url")
        let localPath: String? = try object.optional("path")
        let path = ConfigKey.path(decoder.codingPath)
        if id.isEmpty || !id.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d })
        {
            throw ConfigurationError(
                file: "", key: path + ".id", problem: "must be lowercase letters, digits and '-' (it names files)")
        }
        if url == nil, localPath == nil {
            throw ConfigurationError(
                file: "", key: path + ".url", problem: "required key is missing (or give \"path\": a local file)")
        }
        if url != nil, localPath != nil {
            throw ConfigurationError(
                file: "", key: path, problem: "give either \"url\" (fetched) or \"path\" (a local file), not both")
        }
        if let url, !(url.hasPrefix("https://") || url.hasPrefix("http://")) {
            throw ConfigurationError(file: "", key: path + ".url", problem: "must be an http:// or https:// URL")
        }
        if localPath?.isEmpty == true {
            throw ConfigurationError(file: "", key: path + ".path", problem: "must name a file")
        }
        value = Configuration.Upstream(id: id, url: url ?? localPath ?? "", path: localPath)
        value.snapshot = try object.value("snapshot", default: nil as String?)
        value.requiredHeader = try object.value("requiredHeader", default: value.requiredHeader)
        try object.rejectUnknownKeys()
    }
}

extension Configuration.Refresh: StrictlyReadSection {
    mutating func read(_ object: StrictObject) throws {
        intervalSeconds = try object.positive("intervalSeconds", default: intervalSeconds)
        jitterSeconds = try object.positive("jitterSeconds", default: jitterSeconds, allowZero: true)
        minimumRuleShare = try object.positive("minimumRuleShare", default: minimumRuleShare, allowZero: true)
        if minimumRuleShare > 1 {
            throw ConfigurationError(file: "", key: "refresh.minimumRuleShare", problem: "must be between 0 and 1")
        }
        attempts = try object.positive("attempts", default: attempts)
        retryBaseDelaySeconds = try object.positive(
            "retryBaseDelaySeconds", default: retryBaseDelaySeconds, allowZero: true)
        retryMaxDelaySeconds = try object.positive(
            "retryMaxDelaySeconds", default: retryMaxDelaySeconds, allowZero: true)
        retryAfterFailureSeconds = try object.positive(
            "retryAfterFailureSeconds", default: retryAfterFailureSeconds)
        deadlineSeconds = try object.positive("deadlineSeconds", default: deadlineSeconds)
    }
}

extension Configuration.Fetch: StrictlyReadSection {
    mutating func read(_ object: StrictObject) throws {
        connectTimeoutSeconds = try object.positive("connectTimeoutSeconds", default: connectTimeoutSeconds)
        totalTimeoutSeconds = try object.positive("totalTimeoutSeconds", default: totalTimeoutSeconds)
        maxBodyBytes = try object.positive("maxBodyBytes", default: maxBodyBytes)
        maxRedirects = try object.positive("maxRedirects", default: maxRedirects, allowZero: true)
        userAgent = try object.value("userAgent", default: userAgent)
    }
}

extension Configuration.Conversion: StrictlyReadSection {
    mutating func read(_ object: StrictObject) throws {
        chunkSize = try object.positive("chunkSize", default: chunkSize)
        if chunkSize > ConfigurationLimits.chunkSize.upperBound {
            throw ConfigurationError(
                file: "", key: "conversion.chunkSize",
                problem: "must be at most \(ConfigurationLimits.chunkSize.upperBound) (WebKit's limit per list)")
        }
        maxLists = try object.positive("maxLists", default: maxLists)
        removalGraceRuns = try object.positive("removalGraceRuns", default: removalGraceRuns, allowZero: true)
        if removalGraceRuns > ConfigurationLimits.removalGraceRuns.upperBound {
            throw ConfigurationError(
                file: "", key: "conversion.removalGraceRuns",
                problem: "must be at most \(ConfigurationLimits.removalGraceRuns.upperBound)")
        }
    }
}

extension Configuration.Publish: StrictlyReadSection {
    mutating func read(_ object: StrictObject) throws {
        gracePeriodSeconds = try object.positive("gracePeriodSeconds", default: gracePeriodSeconds, allowZero: true)
        verifyWithWebKit = try object.value("verifyWithWebKit", default: verifyWithWebKit)
        signingKeyFile = try object.value("signingKeyFile", default: signingKeyFile)
        signatureValiditySeconds = try object.positive(
            "signatureValiditySeconds", default: signatureValiditySeconds, allowZero: false)
        isolationMaxCompiles = try object.positive("isolationMaxCompiles", default: isolationMaxCompiles)
        isolationMaxSeconds = try object.positive(
            "isolationMaxSeconds", default: isolationMaxSeconds, allowZero: false)
        compileRegressionRatio = try object.positive(
            "compileRegressionRatio", default: compileRegressionRatio, allowZero: true)
        compileRegressionRounds = try object.positive("compileRegressionRounds", default: compileRegressionRounds)
        if !["auto", "on", "off"].contains(verifyWithWebKit) {
            throw ConfigurationError(
                file: "", key: "publish.verifyWithWebKit", problem: "must be \"auto\", \"on\" or \"off\"")
        }
    }
}

extension Configuration.HTTP: StrictlyReadSection {
    mutating func read(_ object: StrictObject) throws {
        manifestMaxAgeSeconds = try object.positive(
            "manifestMaxAgeSeconds", default: manifestMaxAgeSeconds, allowZero: true)
        manifestStaleWhileRevalidateSeconds = try object.positive(
            "manifestStaleWhileRevalidateSeconds", default: manifestStaleWhileRevalidateSeconds, allowZero: true)
        manifestStaleIfErrorSeconds = try object.positive(
            "manifestStaleIfErrorSeconds", default: manifestStaleIfErrorSeconds, allowZero: true)
        maxHeaderBytes = try object.positive("maxHeaderBytes", default: maxHeaderBytes)
        maxURIBytes = try object.positive("maxURIBytes", default: maxURIBytes)
        headerReadTimeoutSeconds = try object.positive(
            "headerReadTimeoutSeconds", default: headerReadTimeoutSeconds)
        keepAliveIdleTimeoutSeconds = try object.positive(
            "keepAliveIdleTimeoutSeconds", default: keepAliveIdleTimeoutSeconds)
        maxConnections = try object.positive("maxConnections", default: maxConnections)
        shutdownGraceSeconds = try object.positive(
            "shutdownGraceSeconds", default: shutdownGraceSeconds, allowZero: true)
        accessLog = try object.value("accessLog", default: accessLog)
        adminTokenEnvironmentVariable = try object.value(
            "adminTokenEnvironmentVariable", default: adminTokenEnvironmentVariable)
        publicBaseURL = try object.value("publicBaseURL", default: publicBaseURL)
        if let base = publicBaseURL, !PublicBaseURL.isValid(base) {
            throw ConfigurationError(file: "", key: "http.publicBaseURL", problem: PublicBaseURL.requirement)
        }
    }
}
