import Foundation
import HTTPServerCore
import ListFormat
import OriginStore

/// `GET /status` for people (`Accept: text/html` or `/status.html`): one server-rendered page
/// with inline CSS and SVG, no script and no external resource, so the strict `fields` hold.
/// Every text from outside (ids, errors, ABP lines) goes through `StatusFormat.html`.
package struct StatusPage {
    /// `no-store` comes with every dynamic answer; these lock the page down further.
    package static let fields: [HTTPField] = [
        .contentSecurityPolicy(
            "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        ),
        .noSniff, .noReferrer, .vary("Accept"),
    ]
    static let contentType = "text/html; charset=utf-8"
    /// Refreshes listed in the table (the plots use the whole kept history).
    static let refreshRows = 30
    /// A refresh's outcome is cut to this many characters in the table (the whole text is its tooltip).
    static let summaryLength = 140
    /// A skipped line's example is cut to this many characters (a `snippet` line can name 60 sites).
    static let exampleLength = 160
    /// WebKit's resource types (`resource-type`), for the explain form.
    static let resourceTypes = [
        "document", "image", "style-sheet", "script", "font", "raw", "svg-document", "media", "popup", "ping",
        "fetch", "websocket", "other",
    ]

    package var status: OperatorStatus
    var activity: ServerActivity
    /// Oldest first, as `RefreshHistory` keeps it.
    package var history: [RefreshRecord]
    /// Set when `/explain` is off because no admin token is configured: the variable to set.
    var explainOffBecauseUnset: String?
    /// The set this page shows when it is not the default one (`/status?set=<name>`).
    var setName: String?

    package func render() -> [UInt8] {
        var html = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        html += "<title>ListServer status</title><style>\(Self.style)</style></head><body>"
        html += header() + "<main>" + health() + setsSection() + lists() + refreshes() + plots()
        html += compileTime() + isolated() + skipped() + explainForm() + "</main>"
        html +=
            "<footer>listserver \(e(activity.version)) · up \(StatusFormat.age(activity.now.timeIntervalSince(activity.startedAt)))"
        html +=
            " · page rendered \(StatusFormat.time(activity.now)) · <a href=\"status\">JSON</a> (without Accept: text/html) · <a href=\"metrics\">metrics</a> · <a href=\"lists/\">stable list URLs</a></footer>"
        return Array((html + "</body></html>\n").utf8)
    }

    private func e(_ text: String) -> String { StatusFormat.html(text) }

    private static func plural(_ count: Int, _ one: String, _ many: String? = nil) -> String {
        "\(count) " + (count == 1 ? one : many ?? one + "s")
    }

    /// Until this process refreshes, the newest recorded refresh (from before a restart) stands in.
    private var lastRefresh: (at: Date, result: String)? {
        status.lastRefresh.map { ($0.at, $0.result) } ?? history.last.map { ($0.at, $0.result) }
    }

    private var healthy: Bool { activity.manifestInstalled && lastRefresh?.result != RefreshResult.failedLabel }

    /// The error behind a failed last refresh: this process's, else the kept history's (after a
    /// restart), else an upstream's. Never "none" while the header says the refresh failed.
    private var lastError: String? {
        if let error = status.lastRefresh?.error { return error }
        if status.lastRefresh == nil, let record = history.last, record.result == RefreshResult.failedLabel {
            return record.summary
        }
        if let error = status.upstreams.compactMap(\.lastError).first { return error }
        return healthy || !activity.manifestInstalled
            ? nil : "the last refresh failed without a recorded reason; see the server log"
    }

    private func header() -> String {
        let state =
            !activity.manifestInstalled
            ? "No set is being served" : healthy ? "Healthy" : "Serving, but the last refresh failed"
        return
            "<header class=\"\(healthy ? "ok" : "bad")\"><div><h1>ListServer status\(setName.map { " · set " + e($0) } ?? "")</h1><p id=\"verdict\">\(e(state))</p></div></header>"
    }

    // MARK: Health

    private func health() -> String {
        var out = "<section id=\"health\"><h2>Health</h2><dl class=\"facts\">"
        func fact(_ name: String, _ value: String) { out += "<div><dt>\(e(name))</dt><dd>\(value)</dd></div>" }
        fact("Generation", status.signing?.generation.map { String($0) } ?? "unsigned (no generation)")
        let manifest = activity.servedManifestSHA256 ?? status.manifestSHA256
        fact("Manifest", manifest.map { "<code title=\"\(e($0))\">\(e(String($0.prefix(16))))…</code>" } ?? "none")
        if let generated = status.generatedAt {
            fact(
                "Age",
                "\(e(StatusFormat.age(activity.now.timeIntervalSince(generated)))) (\(e(StatusFormat.time(generated))))"
            )
        }
        if let expires = status.signing?.expires { fact("Signature expires", e(expires)) }
        if let refresh = lastRefresh {
            fact("Last refresh", "\(e(StatusFormat.time(refresh.at))): \(e(refresh.result))")
        }
        if let next = status.lastRefresh?.nextAt { fact("Next refresh", e(StatusFormat.time(next))) }
        let lastError = self.lastError
        out +=
            "<div class=\"wide\"><dt>Last error</dt><dd id=\"last-error\">\(lastError.map { "<span class=\"err\">\(e($0))</span>" } ?? "none")</dd></div>"
        out +=
            "</dl><h3>Upstreams</h3><div class=\"scroll\"><table id=\"upstreams\"><thead><tr><th>Upstream</th><th>Copy in use</th>"
        out +=
            "<th>Dated</th><th>Last good fetch</th><th>Last attempt</th><th>Outcome</th><th class=\"num\">Lines</th><th>Error</th></tr></thead><tbody>"
        for upstream in status.upstreams {
            let source = upstream.source == UpstreamSource.bundledSnapshot ? "bundled snapshot" : "upstream"
            // Only web URLs become links (a configured `javascript:` or `file:` URL stays text).
            let web = upstream.url.lowercased().hasPrefix("https://") || upstream.url.lowercased().hasPrefix("http://")
            let name = web ? "<a href=\"\(e(upstream.url))\" rel=\"noreferrer\">\(e(upstream.id))</a>" : e(upstream.id)
            out += "<tr><td>\(name)</td><td>\(source)</td>"
            out +=
                "<td>\(e(upstream.sourceDate ?? "—"))</td><td>\(e(upstream.lastFetchAt.map(StatusFormat.time) ?? "never"))</td>"
            out += "<td class=\"attempt\">\(e(upstream.lastAttemptAt.map(StatusFormat.time) ?? "none yet"))</td>"
            out += "<td>\(e(upstream.lastResult ?? "—"))\(upstream.lastHTTPStatus.map { " (\($0))" } ?? "")</td>"
            out +=
                "<td class=\"num\">\(upstream.rules.map(StatusFormat.count) ?? "—")</td><td class=\"wrap\">\(e(upstream.lastError ?? ""))</td></tr>"
        }
        return out + "</tbody></table></div></section>"
    }

    // MARK: Lists

    private func lists() -> String {
        var out =
            "<section id=\"lists\"><h2>Lists</h2><p class=\"note\">One stable URL per list, for GNOME Web and simple clients: "
            + "<a href=\"lists/\">/lists/</a></p><div class=\"scroll\"><table id=\"list-table\"><thead><tr><th>List</th>"
        out +=
            "<th class=\"num\">Rules</th><th class=\"num\">Bytes</th><th class=\"num\">Gzip</th><th class=\"num\">Compile</th>"
        out += "<th class=\"num\">Unchanged for</th></tr></thead><tbody>"
        var totals = (rules: 0, bytes: 0, gzip: 0)
        for list in status.lists {
            totals.rules += list.rules
            totals.bytes += list.bytes
            totals.gzip += list.gzipBytes
            let compile = compileSeconds(ofFile: list.file).map { String(format: "%.2f s", $0) } ?? "—"
            let days =
                activity.fileDates[list.file].map { "\(max(0, Int(activity.now.timeIntervalSince($0) / 86400))) d" }
                ?? "—"
            out += "<tr data-list=\"\(e(list.id))\"><td><code title=\"\(e(list.file))\">\(e(list.id))</code></td>"
            out +=
                "<td class=\"num\">\(StatusFormat.count(list.rules))</td><td class=\"num\">\(StatusFormat.bytes(list.bytes))</td>"
            out +=
                "<td class=\"num\">\(StatusFormat.bytes(list.gzipBytes))</td><td class=\"num\">\(compile)</td><td class=\"num\">\(days)</td></tr>"
        }
        if status.lists.isEmpty { out += "<tr><td colspan=\"6\">No set published yet.</td></tr>" }
        out +=
            "</tbody><tfoot><tr><th>\(Self.plural(status.lists.count, "list"))</th><th class=\"num\">\(StatusFormat.count(totals.rules))</th>"
        out +=
            "<th class=\"num\">\(StatusFormat.bytes(totals.bytes))</th><th class=\"num\">\(StatusFormat.bytes(totals.gzip))</th><th></th><th></th></tr></tfoot>"
        return out
            + "</table></div><p class=\"note\">Compile: WebKit's compile time in the publish gate for the version served (— when the gate did not compile it in the kept history). Unchanged for: days since the file was first published.</p></section>"
    }

    /// The gate's time for exactly this version (file names carry the content hash).
    private func compileSeconds(ofFile file: String) -> Double? {
        for record in history.reversed() {
            if let seconds = record.lists.first(where: { $0.file == file })?.compileSeconds { return seconds }
        }
        return nil
    }

    // MARK: Refreshes

    private func refreshes() -> String {
        var out =
            "<section id=\"refreshes\"><h2>Last \(Self.refreshRows) refreshes</h2><div class=\"scroll\"><table id=\"refresh-table\">"
        out += "<thead><tr><th>Time</th><th>Outcome</th><th>Lists changed</th><th class=\"num\">Device download</th>"
        out += "<th class=\"num\">Without patches</th><th class=\"num\">Recompiles</th></tr></thead><tbody>"
        let recent = history.suffix(Self.refreshRows).reversed()
        for record in recent {
            let changed =
                record.listsChanged.isEmpty
                ? "—" : record.listsChanged.map { "<code>\(e($0))</code>" }.joined(separator: " ")
            let summary = StatusFormat.cut(record.summary, to: Self.summaryLength)
            out += "<tr class=\"refresh \(e(record.result))\"><td>\(e(StatusFormat.time(record.at)))</td>"
            out += "<td class=\"wrap\" title=\"\(e(record.summary))\">\(e(summary))</td>"
            out +=
                "<td class=\"wrap\">\(changed)</td><td class=\"num\">\(StatusFormat.bytes(record.deviceCost.bytesWithPatches))</td>"
            out +=
                "<td class=\"num\">\(StatusFormat.bytes(record.deviceCost.bytesWhole))</td><td class=\"num\">\(record.deviceCost.listsToRecompile)</td></tr>"
        }
        if recent.isEmpty { out += "<tr><td colspan=\"6\">No refresh recorded yet.</td></tr>" }
        return out + "</tbody></table></div></section>"
    }

    // MARK: Plots

    private func plots() -> String {
        var out =
            "<section id=\"trends\"><h2>Over the kept history (\(Self.plural(history.count, "refresh", "refreshes")))</h2><div class=\"plots\">"
        for (plot, empty) in [
            (StatusPlots.rulesPerFamily(history), "Rules per list family: no publish recorded yet."),
            (StatusPlots.deviceDailyBytes(history), "Device download per day: no refresh recorded yet."),
        ] {
            guard let plot else {
                out += "<figure class=\"empty\"><figcaption>\(e(empty))</figcaption></figure>"
                continue
            }
            out +=
                "<figure><figcaption>\(e(plot.title))</figcaption>\(plot.svg())\(plot.narrow.svg(variant: "narrow"))\(plot.legend())</figure>"
        }
        return out + "</div></section>"
    }

    // MARK: Skipped rules

    private func skipped() -> String {
        var out =
            "<section id=\"skipped\"><h2>Skipped rules</h2><p class=\"note\">ABP lines WebKit cannot express exactly; they are left out, never approximated.</p>"
        out +=
            "<div class=\"scroll\"><table id=\"skipped-table\"><thead><tr><th>Reason</th><th class=\"num\">Lines</th><th>Example</th></tr></thead><tbody>"
        for entry in status.skippedRules ?? [] {
            out += "<tr><td>\(e(entry.reason))</td><td class=\"num\">\(StatusFormat.count(entry.count))</td>"
            let example = entry.example ?? ""
            out +=
                "<td class=\"wrap example\" title=\"\(e(example))\"><code>\(e(StatusFormat.cut(example, to: Self.exampleLength)))</code></td></tr>"
        }
        if status.skippedRules?.isEmpty != false {
            out +=
                "<tr><td colspan=\"3\">\(status.skippedRules == nil ? "No conversion report yet." : "No line was skipped.")</td></tr>"
        }
        return out + "</tbody></table></div></section>"
    }

    // MARK: Explain

    private func explainForm() -> String {
        var out =
            "<section id=\"explain\"><h2>Explain a decision</h2><p class=\"note\">Which rule blocks a URL, or which exception lets it through, in the published set.</p>"
        if let variable = explainOffBecauseUnset {
            return out
                + "<p>Explaining is for operators and is off on this server: no admin token is configured. To enable it, set the environment variable <code>\(e(variable))</code> to a secret and restart <code>listserver serve</code>; the form then asks for it (any user name, the token as password).</p></section>"
        }
        out +=
            "<form method=\"get\" action=\"explain\"><label>URL <input name=\"url\" type=\"url\" required placeholder=\"https://ads.example.com/banner.js\"></label>"
        out += "<label>Page <input name=\"page\" type=\"url\" placeholder=\"https://news.example.org/\"></label>"
        out += "<label>Type <select name=\"type\"><option value=\"\">any</option>"
        for type in Self.resourceTypes { out += "<option>\(type)</option>" }
        out += "</select></label>"
        if let setName { out += "<input type=\"hidden\" name=\"set\" value=\"\(e(setName))\">" }
        return out + "<button type=\"submit\">Explain</button></form></section>"
    }

    static let style = """
        :root{color-scheme:light;--fg:#1d2430;--muted:#5b6472;--line:#dde1e6;--card:#f5f6f8;--ok:#146c2e;--bad:#a61b1b;--accent:#0b5cad}
        *{box-sizing:border-box}
        body{margin:0;color:var(--fg);background:#fff;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
        header{padding:14px 16px;color:#fff;background:var(--ok)}header.bad{background:var(--bad)}header div{max-width:1168px;margin:0 auto}
        header h1{margin:0;font-size:1.3rem}header p{margin:2px 0 0;font-weight:600}
        main{max-width:1200px;margin:0 auto;padding:0 16px 24px}
        h2{font-size:1.15rem;margin:26px 0 10px;padding-bottom:4px;border-bottom:2px solid var(--line)}h3{font-size:1rem;margin:18px 0 6px}
        a{color:var(--accent)}code{font:0.88em/1.3 ui-monospace,"DejaVu Sans Mono",monospace;overflow-wrap:anywhere}td code{white-space:nowrap}td.example code{white-space:normal}
        .facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:8px;margin:0}
        @media (min-width:760px){.facts{grid-template-columns:repeat(auto-fill,minmax(210px,1fr))}}
        .facts div{background:var(--card);border-radius:6px;padding:8px 10px;min-width:0}.facts .wide{grid-column:1/-1}
        dt{font-size:0.8rem;color:var(--muted);text-transform:uppercase;letter-spacing:0.03em}dd{margin:2px 0 0;overflow-wrap:anywhere}
        .err{color:var(--bad)}
        .scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;border:1px solid var(--line);border-radius:6px}
        table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
        th,td{padding:6px 10px;text-align:left;white-space:nowrap;border-bottom:1px solid var(--line);vertical-align:top}
        thead th,tfoot th{background:var(--card);font-size:0.85rem}tbody tr:last-child td{border-bottom:0}
        .num{text-align:right}td.wrap{white-space:normal;min-width:14em;max-width:34em}
        tr.failed td:first-child{border-left:4px solid var(--bad)}tr.published td:first-child{border-left:4px solid var(--ok)}
        .note{color:var(--muted);font-size:0.85rem;margin:6px 0}
        .plots{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,480px),1fr));gap:14px}
        figure{margin:0;padding:10px;background:var(--card);border-radius:6px;min-width:0}figcaption{font-weight:600;margin-bottom:4px}
        svg.plot{display:block;width:100%;height:auto}svg.narrow{display:none}
        @media (max-width:520px){svg.wide{display:none}svg.narrow{display:block}}svg .grid{stroke:#c9ced6;stroke-width:1}
        svg text{fill:var(--muted);font-size:18px;font-family:system-ui,"DejaVu Sans",sans-serif}
        .legend{list-style:none;padding:0;margin:6px 0 0;display:flex;flex-wrap:wrap;gap:4px 14px;font-size:0.85rem}
        .swatch{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:5px;vertical-align:-1px}
        form{display:grid;gap:10px;grid-template-columns:1fr}label{display:grid;gap:3px;font-size:0.85rem;color:var(--muted)}
        input,select,button{font:inherit;padding:8px 10px;border:1px solid #b8bec7;border-radius:6px;width:100%;color:var(--fg);background:#fff}
        button{background:var(--accent);color:#fff;border-color:var(--accent);font-weight:600;cursor:pointer;align-self:end}
        @media (min-width:760px){form{grid-template-columns:2fr 2fr 1fr auto}}
        footer{max-width:1200px;margin:0 auto;padding:12px 16px 28px;color:var(--muted);font-size:0.8rem}
        """
}
