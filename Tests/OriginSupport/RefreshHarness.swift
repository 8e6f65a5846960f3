import Converter
import Foundation
import TestSupport

@testable import OriginConfig
@testable import OriginRefresh
@testable import OriginStore

/// One upstream on a loopback server and the refresh pipeline over it, in process.
package struct RefreshHarness {
    package let directory = ScratchDirectory("refresh")
    package let server: UpstreamServer
    package let status = StatusBoard()
    package let logLines = LogLines()
    package let pipeline: RefreshStages
    package var state = PersistentState()
    /// The set served now, as the server keeps it in memory between refreshes.
    package var published: PublishedSet?

    package init(snapshot: [UInt8]? = nil, attempts: Int = 2, configure: (inout Configuration) -> Void = { _ in })
        throws
    {
        server = try UpstreamServer()
        var configuration = Configuration()
        var upstream = Configuration.Upstream(id: "easylist", url: server.url("/easylist.txt"))
        if let snapshot {
            try snapshot.write(to: directory.sub("snapshot.txt"))
            upstream.snapshot = "snapshot.txt"
        }
        configuration.upstreams = [upstream]
        configuration.refresh.attempts = attempts
        configuration.refresh.retryBaseDelaySeconds = 0.01
        configuration.refresh.retryMaxDelaySeconds = 0.02
        configuration.fetch.totalTimeoutSeconds = 2
        configuration.fetch.maxBodyBytes = 1 << 20
        configuration.publish.verifyWithWebKit = "off"
        configure(&configuration)
        let resolved = ResolvedConfiguration(configuration: configuration, baseDirectory: directory.path)
        pipeline = RefreshStages(
            resolved: resolved, status: status, log: logLines.log, gate: nil,
            publicSuffixes: try RefreshStages.publicSuffixes(for: resolved))
    }

    package mutating func run(_ mode: FetchStage.Mode = .online) -> RefreshOutcome {
        pipeline.run(mode, state: &state, published: &published)
    }
    package var manifestPath: String { pipeline.publisher.writer.path(PublishPlan.manifestName) }
    package var upstreamStatus: OperatorStatus.UpstreamStatus? {
        status.current.upstreams.first { $0.id == "easylist" }
    }
}
