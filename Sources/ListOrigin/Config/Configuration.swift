import Foundation

/// Everything `config.json` can set. Every key is optional in the file and documented in the
/// README; a missing key takes the default shown here. Relative paths resolve against the
/// directory that holds the config file.
struct Configuration: Sendable, Equatable {
    struct Listen: Sendable, Equatable {
        var address = "127.0.0.1"
        var port = 8080
    }

    /// One upstream filter list.
    struct Upstream: Sendable, Equatable {
        /// Stable identifier; names state files and shows in /status.
        var id: String
        var url: String
        /// Bundled copy used when nothing better is on disk (offline first start).
        var snapshot: String?
        /// A body must start with this to count as a filter list.
        var requiredHeader = "[Adblock Plus"
    }

    struct Refresh: Sendable, Equatable {
        /// Seconds between upstream refreshes.
        var intervalSeconds = 86_400.0
        /// Up to this many seconds are added at random so many origins do not fetch in step.
        var jitterSeconds = 900.0
        /// A new copy needs at least this share of the last good copy's rules.
        var minimumRuleShare = 0.5
        /// Fetch attempts per upstream per refresh (first try included).
        var attempts = 4
        /// First retry delay; doubles each time, with jitter.
        var retryBaseDelaySeconds = 2.0
        var retryMaxDelaySeconds = 60.0
        /// After a failed refresh, try again this soon (doubling per failure in a row, at most the interval).
        var retryAfterFailureSeconds = 600.0
        /// A refresh still fetching or converting this long after it began gives up before the next
        /// stage and keeps the published set (a dripping upstream, a hostile list).
        var deadlineSeconds = 1_800.0
    }

    struct Fetch: Sendable, Equatable {
        var connectTimeoutSeconds = 10.0
        var totalTimeoutSeconds = 120.0
        /// Largest upstream body accepted, decoded or not.
        var maxBodyBytes = 20 * 1024 * 1024
        var maxRedirects = 5
        var userAgent = "ListServer/1.0"
    }

    struct Conversion: Sendable, Equatable {
        var chunkSize = 30_000
        var maxLists = 16
        /// Refreshes a list may keep its previous bytes when it only lost removed rules (0: apply
        /// removals at once). Above 0 also moves recent rules into lists that change anyway.
        /// The same as `convert --removal-grace`.
        var removalGraceRuns = 0
    }

    struct Publish: Sendable, Equatable {
        /// Files only older manifests name are kept this long, then removed.
        var gracePeriodSeconds = 7.0 * 86_400
        /// "auto" (verify when WebKitGTK is installed), "on" or "off".
        var verifyWithWebKit = "auto"
        /// The Ed25519 private key (PKCS#8 PEM, mode 0600) that signs every manifest; nil: the
        /// state directory's `signing-key.pem`, generated on first start.
        var signingKeyFile: String?
        /// A signature's validity: the manifest's `expires` is this long after the signing time.
        var signatureValiditySeconds = 14.0 * 86_400
        /// Most WebKit compiles spent finding the lines behind rules WebKit rejects, per publish.
        var isolationMaxCompiles = 200
        /// Most seconds spent finding them, per publish; past either bound the published set stays.
        var isolationMaxSeconds = 600.0
        /// A new list version compiling more than this times slower than the one it replaces (or the
        /// compared lists together) holds the publish until an operator accepts it; 0: never compare.
        var compileRegressionRatio = 1.25
        /// Compiles of each version per comparison, alternating old and new.
        var compileRegressionRounds = 3
    }

    struct HTTP: Sendable, Equatable {
        var manifestMaxAgeSeconds = 300
        var manifestStaleWhileRevalidateSeconds = 600
        var manifestStaleIfErrorSeconds = 86_400
        var maxHeaderBytes = 16_384
        var maxURIBytes = 2_048
        var headerReadTimeoutSeconds = 10.0
        var keepAliveIdleTimeoutSeconds = 60.0
        var maxConnections = 10_000
        /// Seconds SIGTERM waits for in-flight responses.
        var shutdownGraceSeconds = 10.0
        var accessLog = false
        /// Environment variable holding the bearer token for POST /admin/refresh; unset disables it.
        var adminTokenEnvironmentVariable = "LISTSERVER_ADMIN_TOKEN"
        /// Scheme and authority clients reach the lists under (`https://lists.example.net`), for the
        /// absolute URLs `/lists/` gives; nil: `http://<listen.address>:<bound port>`.
        var publicBaseURL: String?
    }

    /// Follower mode: mirror another origin's signed set instead of converting (see docs/followers.md).
    struct Follow: Sendable, Equatable {
        /// The primary's manifest URL (a primary, another follower, or a CDN in front of them).
        var manifest: String
        /// Minisign public keys (base64 `RWQ…`, as the primary's /status shows them) a manifest must be signed by.
        var trustedKeys: [String]
        /// Seconds between polls of the primary's manifest.
        var intervalSeconds = 60.0
    }

    var listen = Listen()
    var publicDir = "public"
    var stateDir = "state"
    var upstreams: [Upstream] = Configuration.defaultUpstreams
    var refresh = Refresh()
    var fetch = Fetch()
    var conversion = Conversion()
    var publish = Publish()
    var http = HTTP()
    /// nil: this origin converts; set: it follows a primary and never converts.
    var follow: Follow?

    static let defaultUpstreams = [
        Upstream(id: "easylist", url: "https://easylist.to/easylist/easylist.txt", snapshot: "snapshot/easylist.txt"),
        Upstream(id: "easyprivacy", url: "https://easylist.to/easylist/easyprivacy.txt", snapshot: "snapshot/easyprivacy.txt"),
    ]
}
