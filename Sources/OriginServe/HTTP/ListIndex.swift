import Foundation
import HTTPServerCore

/// The two representations of `/lists/`: JSON for simple clients (one object per alias, in
/// manifest order) and a page for people in the status page's style, with its escaping, showing
/// the line that points GNOME Web at every alias.
package enum ListIndex {
    /// The status page's lockdown, without the form and image allowances the index does not need.
    static let htmlFields: [HTTPField] = [
        .contentSecurityPolicy(
            "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'"), .noSniff,
        .noReferrer,
    ]

    private struct Document: Encodable {
        var manifest: String
        var publishedAt: Date
        var lists: [ListAliases.Alias]
        var gnomeWeb: String
        var gnomeWeb43: String
    }

    package static func json(_ index: ListAliases) -> [UInt8] {
        let document = Document(
            manifest: index.baseURL + "/manifest.json", publishedAt: index.publishedAt,
            lists: index.aliases,
            gnomeWeb: index.gnomeWebCommand, gnomeWeb43: index.gnomeWeb43Command)
        return encoded(document)
    }

    /// An index document as served: pretty, sorted keys, ISO 8601 dates, a final newline.
    static func encoded(_ document: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        // Encoding plain value types cannot fail; an empty object is the safe fallback.
        let data = (try? encoder.encode(document)) ?? Data("{}".utf8)
        return Array(data) + [0x0A]
    }

    static func html(_ index: ListAliases) -> [UInt8] {
        func e(_ text: String) -> String { StatusFormat.html(text) }
        var out = StatusFormat.pageStart(
            title: "ListServer lists", subtitle: "One stable URL per content-blocker list",
            extraStyle:
                "\npre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--card);padding:10px;border-radius:6px}"
        )
        out +=
            "<section id=\"gnome-web\"><h2>GNOME Web</h2><p class=\"note\">Paste into a terminal, then restart GNOME Web:</p>"
        out += "<pre id=\"gsettings\">\(e(index.gnomeWebCommand))</pre>"
        out += "<p class=\"note\">GNOME Web 43 (Debian 12) keeps the setting one level up:</p>"
        out += "<pre id=\"gsettings-43\">\(e(index.gnomeWeb43Command))</pre></section>"
        out +=
            "<section id=\"aliases\"><h2>Lists</h2><div class=\"scroll\"><table><thead><tr><th>URL</th><th class=\"num\">rules</th>"
        out += "<th class=\"num\">bytes</th><th class=\"num\">gzip</th><th>updated</th></tr></thead><tbody>"
        for alias in index.aliases {
            out += "<tr><td><a href=\"\(e(alias.id)).json\"><code>\(e(alias.url))</code></a></td>"
            out +=
                "<td class=\"num\">\(StatusFormat.count(alias.rules))</td><td class=\"num\">\(e(StatusFormat.bytes(alias.bytes)))</td>"
            out +=
                "<td class=\"num\">\(alias.gzipBytes.map { e(StatusFormat.bytes($0)) } ?? "–")</td><td>\(e(StatusFormat.time(alias.lastModified)))</td></tr>"
        }
        let total = index.aliases.reduce(0) { $0 + $1.rules }
        out +=
            "</tbody><tfoot><tr><th>\(index.aliases.count) lists</th><th class=\"num\">\(StatusFormat.count(total))</th>"
        out += "<th></th><th></th><th></th></tr></tfoot></table></div>"
        out +=
            "<p class=\"note\">Each URL keeps its name from day to day and serves the list's current version (ETag and "
        out += "Last-Modified of that version, cached for minutes). Apps that sync should read the signed "
        out += "<a href=\"../manifest.json\">manifest</a> instead.</p></section></main>"
        out += "<footer>set published \(e(StatusFormat.time(index.publishedAt))) · <a href=\"./\">JSON</a> "
        out += "(without Accept: text/html)</footer></body></html>\n"
        return Array(out.utf8)
    }
}
