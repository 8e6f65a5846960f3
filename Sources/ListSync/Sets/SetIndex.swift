import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An origin's `/sets/`: every set it publishes, with the WebKit target it was converted for and
/// its manifest URL. The index is not signed; it only says where to look. Whatever set a device
/// picks, its manifest must still carry a trusted signature (`ManifestTrust`).
public struct SetIndex: Decodable, Sendable, Equatable {
    public struct Entry: Decodable, Sendable, Equatable {
        public var name: String
        /// A conversion target name, e.g. `safari-17`, `safari-26`.
        public var target: String
        public var upstreams: [String]
        /// Absolute URL of the set's signed manifest.
        public var manifest: String
        /// True for the set the origin also serves at its root URLs.
        public var isDefault: Bool

        public init(name: String, target: String, upstreams: [String], manifest: String, isDefault: Bool) {
            self.name = name
            self.target = target
            self.upstreams = upstreams
            self.manifest = manifest
            self.isDefault = isDefault
        }

        private enum CodingKeys: String, CodingKey {
            case name, target, upstreams, manifest
            case isDefault = "default"
        }
    }

    /// The name of the default set.
    public var defaultSet: String
    public var sets: [Entry]

    /// The largest index accepted: a few sets are a few hundred bytes.
    public static let maximumBytes = 256 * 1024

    public init(defaultSet: String, sets: [Entry]) {
        self.defaultSet = defaultSet
        self.sets = sets
    }

    private enum CodingKeys: String, CodingKey {
        case defaultSet = "default"
        case sets
    }

    /// Reads `/sets/` (JSON) from `url`, capped at `maximumBytes`.
    public static func fetch(_ url: URL, session: URLSession? = nil, timeout: TimeInterval = 60) async throws
        -> SetIndex
    {
        let fetcher = HTTPFetcher(session: session ?? SyncClient.makeSession(), timeout: timeout)
        let response = try await fetcher.get(url, headers: ["Accept": "application/json"], limit: maximumBytes)
        guard response.status == 200 else {
            throw SyncError.manifestStatus(url: url.absoluteString, status: response.status)
        }
        do {
            return try JSONDecoder().decode(SetIndex.self, from: response.body)
        } catch {
            throw SyncError.manifestUnreadable(url: url.absoluteString, reason: "not a set index: \(error)")
        }
    }
}
