import Foundation
import HTTPServerCore
import ListFormat
import OriginConfig
import OriginStore

/// `/sets/`: every set this origin publishes, with its target, its upstreams and its manifest URL,
/// so a client can choose by its WebKit version (JSON, or HTML for a browser, like `/lists/`).
/// Each set is also served under `/sets/<name>/` (the default set as well as at the root).
package struct SetsIndex: Sendable {
    /// The index as JSON (the default representation of `/sets/`).
    static let indexName = ResolvedConfiguration.setsDirectory
    /// The index as HTML (what `/sets/` answers a browser).
    static let indexHTMLName = ResolvedConfiguration.setsDirectory + "index.html"

    package struct Entry: Encodable, Equatable {
        package var name: String
        package var target: String
        package var upstreams: [String]
        /// Absolute URL of the set's signed manifest.
        package var manifest: String
        /// True for the set also served at the origin's root URLs.
        package var isDefault: Bool
        /// When the set's manifest was published; nil while it has none.
        package var publishedAt: Date?

        private enum CodingKeys: String, CodingKey {
            case name, target, upstreams, manifest
            case isDefault = "default"
            case publishedAt
        }
    }

    private struct Document: Encodable {
        var defaultSet: String
        var sets: [Entry]
        private enum CodingKeys: String, CodingKey {
            case defaultSet = "default"
            case sets
        }
    }

    var entries: [Entry]
    var defaultName: String

    /// `contents` maps each set name to its installed generation.
    init(definitions: [ListSetDefinition], defaultName: String, contents: [String: SiteContent], baseURL: String) {
        self.defaultName = defaultName
        entries = definitions.map { definition in
            Entry(
                name: definition.name, target: definition.target, upstreams: definition.upstreams,
                manifest: baseURL + "/" + Self.indexName + definition.name + "/" + SiteContent.manifestName,
                isDefault: definition.name == defaultName,
                publishedAt: contents[definition.name]?.manifest?.lastModified)
        }
    }

    func json() -> [UInt8] {
        ListIndex.encoded(Document(defaultSet: defaultName, sets: entries))
    }

    func html() -> [UInt8] {
        func e(_ text: String) -> String { StatusFormat.html(text) }
        var out = StatusFormat.pageStart(
            title: "ListServer sets", subtitle: "One signed set per WebKit target or region")
        out += "<section id=\"sets\"><h2>Sets</h2><div class=\"scroll\"><table><thead><tr><th>set</th><th>target</th>"
        out += "<th>upstreams</th><th>manifest</th><th>updated</th></tr></thead><tbody>"
        for entry in entries {
            out += "<tr><td>\(e(entry.name))\(entry.isDefault ? " (default)" : "")</td><td>\(e(entry.target))</td>"
            out +=
                "<td>\(e(entry.upstreams.joined(separator: ", ")))</td><td><a href=\"\(e(entry.manifest))\"><code>\(e(entry.manifest))</code></a></td>"
            out += "<td>\(entry.publishedAt.map { e(StatusFormat.time($0)) } ?? "not yet published")</td></tr>"
        }
        out +=
            "</tbody></table></div><p class=\"note\">A device takes the set of the newest target its WebKit supports "
        out +=
            "(safari-26: Safari/iOS 26 or WebKitGTK 2.50 and later; safari-17: every other), else the default set.</p></section></main>"
        out += "<footer><a href=\"./\">JSON</a> (without Accept: text/html)</footer></body></html>\n"
        return Array(out.utf8)
    }

    /// Both representations as static resources, short-cached like the manifest.
    func resources(cacheControl: CacheControl, lastModified: Date) -> [StaticResource] {
        let json = json()
        let html = html()
        return [
            StaticResource(
                name: Self.indexName, identity: json, gzip: try? Gzip.compress(json),
                sha256: SHA256Digest.hex(of: json),
                lastModified: lastModified, cacheControl: cacheControl, vary: ListAliases.indexVary),
            StaticResource(
                name: Self.indexHTMLName, identity: html, gzip: try? Gzip.compress(html),
                sha256: SHA256Digest.hex(of: html),
                lastModified: lastModified, cacheControl: cacheControl, contentType: StatusPage.contentType,
                vary: ListAliases.indexVary, fields: ListIndex.htmlFields),
        ]
    }
}

extension SiteContent {
    /// The generation's resources under `sets/<name>/`: the same bytes and validators, with the
    /// alias index's URLs and each dictionary scope moved under that path.
    func staticResources(_ configuration: Configuration.HTTP, baseURL: String, setName: String) -> [StaticResource] {
        let prefix = ResolvedConfiguration.setsDirectory + setName + "/"
        return staticResources(configuration, baseURL: baseURL + "/" + prefix.dropLast()).map { resource in
            var moved = resource
            moved.name = prefix + resource.name
            moved.fields = resource.fields.map { field in
                var field = field
                field.value = field.value.replacingOccurrences(of: "match=\"/", with: "match=\"/" + prefix)
                return field
            }
            return moved
        }
    }
}
