import HTTPServerCore
import OriginConfig
import OriginStore

extension SiteContent {
    /// The generation as the HTTP library's static resources: hashed files are immutable (their
    /// name changes with their bytes); the manifest is short-cached with validators; list files
    /// also negotiate RFC 9842 `dcz` from the patches that lead to them. Each current list also has
    /// a stable alias under `lists/`, cached like the manifest; `baseURL` is what the alias index writes.
    func staticResources(_ configuration: Configuration.HTTP, baseURL: String = "") -> [StaticResource] {
        let dictionaries = ListDictionaryFields(files: files)
        var resources = files.map { name, entry in
            // A dcz patch is already compressed: octet-stream, never gzip-encoded again.
            let isPatch = name.hasSuffix(".dcz")
            return dictionaries.apply(
                to: StaticResource(
                    name: name, identity: entry.identity, gzip: isPatch ? nil : entry.gzip, sha256: entry.sha256,
                    lastModified: entry.lastModified,
                    cacheControl: .immutable, contentType: isPatch ? "application/octet-stream" : "application/json"))
        }
        for (name, entry) in signatures {
            resources.append(
                StaticResource(
                    name: name, identity: entry.identity, gzip: nil, sha256: entry.sha256,
                    lastModified: entry.lastModified,
                    cacheControl: .immutable, contentType: "text/plain; charset=utf-8"))
        }
        let cache = Self.manifestCacheControl(configuration)
        let byName = Dictionary(resources.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        resources += ListAliases(content: self, baseURL: baseURL).resources(files: byName, cacheControl: cache)
        if let manifest {
            resources.append(
                StaticResource(
                    name: Self.manifestName, identity: manifest.identity, gzip: manifest.gzip, sha256: manifest.sha256,
                    lastModified: manifest.lastModified, cacheControl: cache))
        }
        return resources
    }

    /// The manifest's caching, shared by every short-lived name (aliases, indexes).
    static func manifestCacheControl(_ configuration: Configuration.HTTP) -> CacheControl {
        CacheControl.shared(
            maxAge: configuration.manifestMaxAgeSeconds,
            staleWhileRevalidate: configuration.manifestStaleWhileRevalidateSeconds,
            staleIfError: configuration.manifestStaleIfErrorSeconds)
    }
}
