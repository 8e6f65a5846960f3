import Converter
import Foundation
import HTTPServerCore

/// Everything `config.json` can set. Every key is optional in the file and documented in the
/// README; a missing key takes the default shown here. Relative paths resolve against the
/// directory that holds the config file.
package struct Configuration: Sendable, Equatable {
    package struct Listen: Sendable, Equatable {
        package var address = "127.0.0.1"
        package var port = 8080
    }

    /// One upstream filter list.
    package struct Upstream: Sendable, Equatable {
        /// Stable identifier; names state files and shows in /status.
        package var id: String
        /// Where the list comes from: the URL fetched, or for a local upstream its `path` as given.
        package var url: String
        /// A local file read at each refresh instead of a fetch (an operator's own rules), checked
        /// like a fetched body; relative to the config file's directory.
        package var path: String? = nil
        /// Bundled copy used when nothing better is on disk (offline first start).
        package var snapshot: String?
        /// A body must start with this to count as a filter list.
        package var requiredHeader = "[Adblock Plus"
    }

    package struct Refresh: Sendable, Equatable {
        /// Seconds between upstream refreshes.
        package var intervalSeconds = 86_400.0
        /// Up to this many seconds are added at random so many origins do not fetch in step.
        package var jitterSeconds = 900.0
        /// A new copy needs at least this share of the last good copy's rules.
        package var minimumRuleShare = 0.5
        /// Fetch attempts per upstream per refresh (first try included).
        package var attempts = 4
        /// First retry delay; doubles each time, with jitter.
        package var retryBaseDelaySeconds = 2.0
        package var retryMaxDelaySeconds = 60.0
        /// After a failed refresh, try again this soon (doubling per failure in a row, at most the interval).
        package var retryAfterFailureSeconds = 600.0
        /// A refresh still fetching or converting this long after it began gives up before the next
        /// stage and keeps the published set (a dripping upstream, a hostile list).
        package var deadlineSeconds = 1_800.0
    }

    package struct Fetch: Sendable, Equatable {
        package var connectTimeoutSeconds = 10.0
        package var totalTimeoutSeconds = 120.0
        /// Largest upstream body accepted, decoded or not.
        package var maxBodyBytes = 20 * 1024 * 1024
        package var maxRedirects = 5
        package var userAgent = "ListServer/1.0"
    }

    package struct Conversion: Sendable, Equatable {
        package var chunkSize = ConverterConfiguration.defaultChunkSize
        package var maxLists = ConverterConfiguration.defaultMaxLists
        /// Refreshes a list may keep its previous bytes when it only lost removed rules (0: apply
        /// removals at once). Above 0 also moves recent rules into lists that change anyway.
        /// The same as `convert --removal-grace`.
        package var removalGraceRuns = 0
    }

    package struct Publish: Sendable, Equatable {
        /// Files only older manifests name are kept this long, then removed.
        package var gracePeriodSeconds = 7.0 * 86_400
        /// "auto" (verify when WebKitGTK is installed), "on" or "off".
        package var verifyWithWebKit = "auto"
        /// The Ed25519 private key (PKCS#8 PEM, mode 0600) that signs every manifest; nil: the
        /// state directory's `signing-key.pem`, generated on first start.
        package var signingKeyFile: String?
        /// A signature's validity: the manifest's `expires` is this long after the signing time.
        package var signatureValiditySeconds = 14.0 * 86_400
        /// Most WebKit compiles spent finding the lines behind rules WebKit rejects, per publish.
        package var isolationMaxCompiles = 200
        /// Most seconds spent finding them, per publish; past either bound the published set stays.
        package var isolationMaxSeconds = 600.0
        /// A new list version compiling more than this times slower than the one it replaces (or the
        /// compared lists together) holds the publish until an operator accepts it; 0: never compare.
        package var compileRegressionRatio = 1.25
        /// Compiles of each version per comparison, alternating old and new.
        package var compileRegressionRounds = 3
    }

    package struct HTTP: Sendable, Equatable {
        package var manifestMaxAgeSeconds = 300
        package var manifestStaleWhileRevalidateSeconds = 600
        package var manifestStaleIfErrorSeconds = 86_400
        /// The server's own limits are its defaults: `HTTPServerCore` owns them.
        private static let server = HTTPServerConfiguration()
        package var maxHeaderBytes = server.maxHeaderBytes
        package var maxURIBytes = server.maxURIBytes
        package var headerReadTimeoutSeconds = server.headerReadTimeoutSeconds
        package var keepAliveIdleTimeoutSeconds = server.keepAliveIdleTimeoutSeconds
        package var maxConnections = server.maxConnections
        /// Seconds SIGTERM waits for in-flight responses.
        package var shutdownGraceSeconds = 10.0
        package var accessLog = false
        /// Environment variable holding the bearer token for POST /admin/refresh; unset disables it.
        package var adminTokenEnvironmentVariable = "LISTSERVER_ADMIN_TOKEN"
        /// Scheme and authority clients reach the lists under (`https://lists.example.net`), for the
        /// absolute URLs `/lists/` gives; nil: `http://<listen.address>:<bound port>`.
        package var publicBaseURL: String?
    }

    /// Follower mode: mirror another origin's signed set instead of converting (see docs/followers.md).
    package struct Follow: Sendable, Equatable {
        /// The primary's manifest URL (a primary, another follower, or a CDN in front of them).
        package var manifest: String
        /// Minisign public keys (base64 `RWQ…`, as the primary's /status shows them) a manifest must be signed by.
        package var trustedKeys: [String]
        /// Seconds between polls of the primary's manifest.
        package var intervalSeconds = 60.0
    }

    package var listen = Listen()
    var publicDir = "public"
    package var stateDir = "state"
    package var upstreams: [Upstream] = Configuration.defaultUpstreams
    package var refresh = Refresh()
    package var fetch = Fetch()
    package var conversion = Conversion()
    package var publish = Publish()
    package var http = HTTP()
    /// Hosts where devices turn blocking off, normalised at load; the admin endpoint adds and
    /// removes more at runtime (kept in `stateDir`). Carried in the manifest, never in a list.
    package var unprotectedSites: [String] = []
    /// nil: this origin converts; set: it follows a primary and never converts.
    package var follow: Follow?
    /// nil: one set of every upstream (`publishedSets`); set: each set is published on its own.
    package var sets: [ListSetDefinition]?

    static let defaultUpstreams = [
        Upstream(id: "easylist", url: "https://easylist.to/easylist/easylist.txt", snapshot: "snapshot/easylist.txt"),
        Upstream(
            id: "easyprivacy", url: "https://easylist.to/easylist/easyprivacy.txt", snapshot: "snapshot/easyprivacy.txt"
        ),
    ]
}

/// The defaults, for the other stages' modules (the synthesized initializers are internal to this one).
extension Configuration.HTTP {
    package static var defaults: Self { Self() }
}

extension Configuration.Conversion {
    package static var defaults: Self { Self() }
}

extension Configuration.Publish {
    package static var defaults: Self { Self() }
}
