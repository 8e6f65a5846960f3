import Foundation
import OriginStore

/// The status page's compile-time comparison: each new list version's WebKit compile time against
/// the version it replaces, and, when that held the publish, the lines added and how to accept.
extension StatusPage {
    func compileTime() -> String {
        guard let comparison = status.compileRegression else { return "" }
        let verdict =
            comparison.held && !comparison.accepted
            ? "Publish held" : comparison.accepted ? "Accepted by the operator" : "Within the limit"
        var out =
            "<section id=\"compile-time\"><h2>Compile time of new versions</h2><p id=\"compile-verdict\" class=\"\(comparison.held && !comparison.accepted ? "err" : "note")\">"
        out += "\(verdict): whole set \(CompileRegressionGate.Comparison.ratio(comparison.setRatio)), limit "
        out +=
            "\(CompileRegressionGate.Comparison.ratio(comparison.maxRatio)) (<code>publish.compileRegressionRatio</code>).</p>"
        out +=
            "<div class=\"scroll\"><table id=\"compile-table\"><thead><tr><th>List</th><th class=\"num\">Previous</th><th class=\"num\">New</th>"
        out += "<th class=\"num\">Ratio</th><th>Holds</th></tr></thead><tbody>"
        for list in comparison.lists {
            out +=
                "<tr data-compiled=\"\(StatusFormat.html(list.id))\"><td><code>\(StatusFormat.html(list.id))</code></td>"
            out +=
                "<td class=\"num\">\(list.previousSeconds.map(CompileRegressionGate.Comparison.seconds) ?? "new list")</td>"
            out += "<td class=\"num\">\(CompileRegressionGate.Comparison.seconds(list.newSeconds))</td>"
            out +=
                "<td class=\"num\">\(list.ratio.map(CompileRegressionGate.Comparison.ratio) ?? "—")</td><td>\(list.held ? "yes" : "no")</td></tr>"
        }
        out += "</tbody></table></div>"
        if comparison.held {
            out += "<p class=\"note\">\(comparison.addedLineCount) ABP lines added to the held lists"
            out +=
                comparison.addedLines.isEmpty
                ? ".</p>" : ", first \(comparison.addedLines.count):</p><ul id=\"compile-added\">"
            for line in comparison.addedLines {
                out +=
                    "<li><code>\(StatusFormat.html(line.upstream)):\(line.line) \(StatusFormat.html(StatusFormat.cut(line.text, to: Self.exampleLength)))</code></li>"
            }
            if !comparison.addedLines.isEmpty { out += "</ul>" }
            if !comparison.accepted {
                out +=
                    "<p>To publish it anyway: <code>POST /admin/accept-compile-time</code> with the admin token, or raise <code>publish.compileRegressionRatio</code>. The published set is served until then.</p>"
            }
        }
        return out + "</section>"
    }
}
