import Converter
import Foundation

/// The refresh side of the server, wired from the configuration: state store, fetcher, converter,
/// publish gate and publisher. Shared by `serve` and `fetch`.
struct Pipeline: Sendable {
    var resolved: ResolvedConfiguration
    var store: StateStore
    var publisher: Publisher
    var cycle: RefreshCycle

    init(resolved: ResolvedConfiguration, status: StatusBoard, log: Log, gate: (any PublishGate)?) {
        self.resolved = resolved
        let configuration = resolved.configuration
        store = StateStore(directory: resolved.stateDirectory)
        publisher = Publisher(writer: SetWriter(directory: resolved.publicDirectory),
                              gracePeriod: configuration.publish.gracePeriodSeconds, gate: gate, log: log.child("publish"))
        let converter = ListConverter(configuration: ConverterConfiguration(chunkSize: configuration.conversion.chunkSize,
                                                                            maxLists: configuration.conversion.maxLists))
        cycle = RefreshCycle(configuration: configuration, baseDirectory: resolved.baseDirectory, store: store, publisher: publisher,
                             fetcher: CurlFetcher(configuration: configuration.fetch), converter: converter, status: status,
                             log: log.child("refresh"))
    }

    /// Fills /status from the state directory, before anything runs.
    func seedStatus(_ status: StatusBoard, state: PersistentState) {
        status.update { board in
            board.upstreams = resolved.configuration.upstreams.map { upstream in
                let record = state.upstreams[upstream.id]
                return OperatorStatus.UpstreamStatus(
                    id: upstream.id, url: upstream.url, source: record?.source ?? UpstreamSource.bundledSnapshot,
                    sourceDate: record?.sourceDate ?? (record == nil ? BundledSnapshot.label : nil), lastFetchAt: record?.fetchedAt,
                    etag: record?.etag, lastModified: record?.lastModified, rules: record?.rules)
            }
        }
    }

    /// Fills the list part of /status from a loaded manifest.
    func recordLoadedSet(_ status: StatusBoard, content: SiteContent, manifestLists: [(id: String, file: String, rules: Int)]) {
        status.update { board in
            board.manifestSHA256 = content.manifest?.sha256
            board.generatedAt = content.manifest?.lastModified
            board.lists = manifestLists.map { list in
                let entry = content.files[list.file]
                return OperatorStatus.ListStatus(id: list.id, file: list.file, rules: list.rules,
                                                 bytes: entry?.identity.count ?? 0, gzipBytes: entry?.gzip?.count ?? 0)
            }
        }
    }
}
