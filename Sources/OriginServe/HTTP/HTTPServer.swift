import Foundation
import HTTPServerCore
import OriginConfig
import OriginStore

/// The origin's HTTP server: the library's `HTTP1Server` with the origin's responder, fed
/// `SiteContent` generations. Construct it, `start()` it, `install` each published generation,
/// and `shutdown(grace:)` it on SIGTERM/SIGINT.
package final class HTTPServer: @unchecked Sendable {
    package typealias StartError = HTTP1Server.StartError

    package static let version = ListServerVersion.current

    private let configuration: Configuration.HTTP
    private let listen: Configuration.Listen
    private let core: HTTP1Server
    /// The default set's board; its `sets` hold the other sets' status.
    private let status: StatusBoard
    /// `/explain`'s engine of each set, dropped when that set's generation changes.
    let explainCache: ExplainEngineCache
    private let startedAt = Date()
    /// Serialises installs; the last generation is kept so `start()` can rebuild the alias index
    /// with the bound port.
    private let installLock = NSLock()
    private var installed: SiteContent?
    /// The sets this origin publishes (`/sets/`) and the generation installed for each set other
    /// than the default one (which is `installed`).
    private var setDefinitions: [ListSetDefinition] = []
    private var defaultSetName = Configuration.defaultSetName
    private var installedOthers: [String: SiteContent] = [:]
    private var boundPort: Int?

    /// `publicDirectory` is where the published sets are written; `/explain` reads each set's
    /// rule provenance there. `onAdminRefresh` is what an authorized `POST /admin/refresh` does;
    /// `onAcceptCompileTime` accepts the publish the compile-time gate holds (before that refresh).
    package init(
        configuration: Configuration.HTTP, listen: Configuration.Listen, status: StatusBoard, log: Log,
        admin: AdminCredential?,
        onAdminRefresh: @escaping @Sendable () -> Void = {},
        onAcceptCompileTime: @escaping @Sendable () -> String? = { nil },
        onUnprotectedSite: (@Sendable (UnprotectedSiteChange) -> Void)? = nil, publicDirectory: String? = nil,
        authLimiter: AuthFailureLimiter = AuthFailureLimiter()
    ) {
        self.configuration = configuration
        self.listen = listen
        self.status = status
        var settings = HTTPServerConfiguration()
        settings.address = listen.address
        settings.port = listen.port
        settings.serverName = "listserver"
        settings.maxHeaderBytes = configuration.maxHeaderBytes
        settings.maxURIBytes = configuration.maxURIBytes
        settings.headerReadTimeoutSeconds = configuration.headerReadTimeoutSeconds
        settings.keepAliveIdleTimeoutSeconds = configuration.keepAliveIdleTimeoutSeconds
        settings.maxConnections = configuration.maxConnections
        settings.accessLog = configuration.accessLog
        explainCache = ExplainEngineCache(provenanceDirectory: publicDirectory)
        let state = OriginResponder.State(
            admin: admin, onAdminRefresh: onAdminRefresh, onAcceptCompileTime: onAcceptCompileTime,
            onUnprotectedSite: onUnprotectedSite, status: status, explain: explainCache,
            authLimiter: authLimiter, adminTokenVariable: configuration.adminTokenEnvironmentVariable,
            publicDirectory: publicDirectory)
        core = HTTP1Server(
            configuration: settings, routes: OriginRoute.routes, responder: OriginResponder(state: state),
            log: { line in log.info(line) })
        state.activity = { [weak core, startedAt] in
            guard let core else {
                return ServerActivity(
                    version: Self.version, startedAt: startedAt, now: Date(), openConnections: 0,
                    metrics: HTTPCounters(routeLabels: OriginRoute.routes.labels), fileDates: [:],
                    manifestInstalled: false)
            }
            return Self.activity(of: core, startedAt: startedAt)
        }
        let activity = state.activity
        state.activity = { [weak self] in
            var current = activity()
            current.sets = self?.servedSets() ?? []
            return current
        }
    }

    /// Binds and starts serving; returns the bound port (useful when `listen.port` is 0).
    package func start() throws -> Int {
        let port = try core.start()
        installLock.lock()
        defer { installLock.unlock() }
        boundPort = port
        if let installed, configuration.publicBaseURL == nil { installLocked(installed) }
        return port
    }

    /// Replaces the served generation atomically: requests parsed after this call see the new
    /// table, responses already queued keep their (reference-counted) old bytes.
    package func install(_ content: SiteContent) {
        installLock.lock()
        defer { installLock.unlock() }
        installLocked(content)
    }

    /// Names the sets `/sets/` lists. Called again (a follower whose primary added or dropped a
    /// set), the site is rebuilt: a set no longer described is no longer served.
    package func describeSets(_ definitions: [ListSetDefinition], defaultSet: String) {
        installLock.lock()
        defer { installLock.unlock() }
        setDefinitions = definitions
        defaultSetName = defaultSet
        let names = Set(definitions.map(\.name))
        installedOthers = installedOthers.filter { names.contains($0.key) }
        explainCache.setDefaultSet(defaultSet)
        if let installed { installLocked(installed) }
    }

    /// Every described set with what is installed for it now.
    private func servedSets() -> [ServedSetActivity] {
        installLock.lock()
        defer { installLock.unlock() }
        return setDefinitions.map { definition in
            let isDefault = definition.name == defaultSetName
            return ServedSetActivity(
                definition: definition, isDefault: isDefault,
                content: isDefault ? installed : installedOthers[definition.name],
                status: isDefault ? status.current : status.sets[definition.name]?.current)
        }
    }

    /// Replaces the served generation of the set `name` (not the default one), atomically with the rest.
    package func install(_ content: SiteContent, set name: String) {
        installLock.lock()
        defer { installLock.unlock() }
        installedOthers[name] = content
        installLocked(installed ?? .empty)
    }

    private func installLocked(_ content: SiteContent) {
        installed = content
        let base =
            configuration.publicBaseURL ?? PublicBaseURL.local(address: listen.address, port: boundPort ?? listen.port)
        var resources = content.staticResources(configuration, baseURL: base)
        if !setDefinitions.isEmpty {
            var contents = installedOthers
            contents[defaultSetName] = content
            for definition in setDefinitions {
                resources += (contents[definition.name] ?? .empty).staticResources(
                    configuration, baseURL: base, setName: definition.name)
            }
            let index = SetsIndex(
                definitions: setDefinitions, defaultName: defaultSetName, contents: contents, baseURL: base)
            let newest =
                contents.values.compactMap { $0.manifest?.lastModified }.max() ?? Date(timeIntervalSince1970: 0)
            resources += index.resources(
                cacheControl: SiteContent.manifestCacheControl(configuration), lastModified: newest)
        }
        core.install(StaticSite(resources: resources))
        explainCache.installed(
            manifestSHA256: content.manifest?.sha256,
            others: installedOthers.compactMapValues { $0.manifest?.sha256 }.filter { name, _ in
                setDefinitions.contains { $0.name == name && $0.name != defaultSetName }
            })
    }

    /// Stops accepting, lets in-flight responses finish for up to `grace` seconds, closes idle
    /// connections, then closes whatever is left. Blocks until the loops have exited.
    package func shutdown(grace: Double) {
        core.shutdown(grace: grace)
    }

    /// Connections open right now, across all loops.
    var openConnections: Int { core.openConnections }

    private static func activity(of core: HTTP1Server, startedAt: Date) -> ServerActivity {
        let site = core.currentSite
        var fileDates: [String: Date] = [:]
        for resource in site.sources where resource.name != SiteContent.manifestName {
            fileDates[resource.name] = resource.lastModified
        }
        let manifest = site.resource(named: SiteContent.manifestName)?.source
        return ServerActivity(
            version: version, startedAt: startedAt, now: Date(), openConnections: core.openConnections,
            metrics: core.counters,
            fileDates: fileDates, manifestInstalled: manifest != nil,
            servedManifestSHA256: manifest?.sha256, servedManifestPublishedAt: manifest?.lastModified)
    }
}
