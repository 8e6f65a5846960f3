import Foundation

/// The status page's table of ABP lines left out because WebKit rejected their rules: what an
/// operator on call reports upstream, with WebKit's own error.
extension StatusPage {
    /// An isolated line's text is cut to this many characters (the whole text is its tooltip).
    static let isolatedLineLength = 160

    func isolated() -> String {
        guard let lines = status.isolatedLines, !lines.isEmpty else { return "" }
        var out =
            "<section id=\"isolated\"><h2>Lines WebKit rejected</h2><p class=\"note\">Left out of the published set so the rest of it could be published; "
        out +=
            "they come back by themselves once upstream fixes them. Counted under the skip reason <code>webkit-rejected</code>.</p>"
        out +=
            "<div class=\"scroll\"><table id=\"isolated-table\"><thead><tr><th>Upstream line</th><th>ABP line</th><th>List</th><th>WebKit's error</th></tr></thead><tbody>"
        for line in lines {
            let text = StatusFormat.cut(line.text, to: Self.isolatedLineLength)
            out += "<tr><td><code>\(StatusFormat.html(line.upstream)):\(line.line)</code></td>"
            out +=
                "<td class=\"wrap example\" title=\"\(StatusFormat.html(line.text))\"><code>\(StatusFormat.html(text))</code></td>"
            out +=
                "<td><code>\(StatusFormat.html(line.list))</code></td><td class=\"wrap err\">\(StatusFormat.html(line.error))</td></tr>"
        }
        return out + "</tbody></table></div></section>"
    }
}
