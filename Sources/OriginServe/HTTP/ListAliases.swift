import Foundation
import HTTPServerCore
import ListFormat
import OriginStore

/// Stable URLs for consumers that cannot read the manifest (GNOME Web's `content-filters`, fixed
/// "latest" URLs): `lists/<id>.json` serves the current version of list `id` with the bytes, gzip,
/// `dcz` bodies and ETags of its hashed file, but cached briefly like the manifest, since the name
/// outlives the content. `lists/` indexes them (JSON, or HTML for a browser). All of it is static
/// resources built once per generation from the manifest; nothing is formatted per request.
package struct ListAliases {
    /// The URL directory of the aliases and the index (no leading slash, as request names are).
    package static let directory = "lists/"
    /// The index as JSON (the default representation of `/lists/`).
    static let indexName = "lists/"
    /// The index as HTML (what `/lists/` answers a browser; also reachable by this name).
    static let indexHTMLName = "lists/index.html"
    /// Both index representations vary on `Accept` (HTML or JSON) as well as on the encoding.
    static let indexVary = "Accept, Accept-Encoding"

    /// One list id of the current manifest and what its alias serves (also an entry of the JSON index).
    package struct Alias: Equatable, Encodable {
        package var id: String
        /// The absolute URL a consumer configures.
        package var url: String
        /// The hashed file the alias serves now.
        package var file: String
        package var sha256: String
        package var rules: Int
        package var bytes: Int
        package var gzipBytes: Int?
        package var lastModified: Date

        package var name: String { ListAliases.aliasName(id) }

        private enum CodingKeys: String, CodingKey {
            case id, url, file, sha256, rules, bytes, gzipBytes, lastModified
        }
    }

    /// In manifest order.
    var aliases: [Alias]
    /// Absolute URL prefix the index writes (`https://lists.example.net`), without a trailing slash.
    var baseURL: String
    /// When the manifest was published: the index's Last-Modified.
    package var publishedAt: Date

    static func aliasName(_ id: String) -> String { directory + id + ".json" }

    /// The aliases of `content`'s manifest; none while no valid manifest is installed.
    package init(content: SiteContent, baseURL: String) {
        self.baseURL = baseURL
        publishedAt = content.manifest?.lastModified ?? Date(timeIntervalSince1970: 0)
        guard let manifest = content.manifest, let decoded = try? Manifest.decode(Data(manifest.identity)) else {
            aliases = []
            return
        }
        aliases = decoded.lists.compactMap { entry in
            guard let file = content.files[entry.file], file.sha256 == entry.sha256 else { return nil }
            return Alias(
                id: entry.id, url: baseURL + "/" + Self.aliasName(entry.id), file: entry.file, sha256: entry.sha256,
                rules: entry.rules, bytes: file.identity.count,
                gzipBytes: file.gzip?.count, lastModified: file.lastModified)
        }
    }

    /// The alias resources, each the hashed file's resource (`files`, by name, with its RFC 9842
    /// fields) under the alias name with `cacheControl`, plus both index representations.
    func resources(files: [String: StaticResource], cacheControl: CacheControl) -> [StaticResource] {
        var out: [StaticResource] = []
        for alias in aliases {
            guard var resource = files[alias.file] else { continue }
            resource.name = alias.name
            resource.cacheControl = cacheControl
            // A client that keeps this version as a dictionary offers it on its next fetch of the
            // same alias, where the patches to the next version are negotiated as on the hashed name.
            if !resource.dictionaryCompressed.isEmpty || !resource.fields.isEmpty {
                resource.fields = [.useAsDictionary("match=\"/\(alias.name)\"")]
            }
            out.append(resource)
        }
        guard !aliases.isEmpty else { return out }
        let json = ListIndex.json(self)
        let html = ListIndex.html(self)
        out.append(
            StaticResource(
                name: Self.indexName, identity: json, gzip: try? Gzip.compress(json),
                sha256: SHA256Digest.hex(of: json),
                lastModified: publishedAt, cacheControl: cacheControl, vary: Self.indexVary))
        out.append(
            StaticResource(
                name: Self.indexHTMLName, identity: html, gzip: try? Gzip.compress(html),
                sha256: SHA256Digest.hex(of: html),
                lastModified: publishedAt, cacheControl: cacheControl, contentType: StatusPage.contentType,
                vary: Self.indexVary, fields: ListIndex.htmlFields))
        return out
    }

    /// GNOME Web's setting for every alias, ready to paste into a shell.
    var gnomeWebCommand: String { gsettings(schema: "org.gnome.Epiphany.web") }

    /// The same for GNOME Web 43 (Debian 12), which keeps `content-filters` in the parent schema.
    var gnomeWeb43Command: String { gsettings(schema: "org.gnome.Epiphany") }

    private func gsettings(schema: String) -> String {
        let urls = aliases.map { "'\($0.url)'" }.joined(separator: ", ")
        return "gsettings set \(schema) content-filters \"[\(urls)]\""
    }
}
