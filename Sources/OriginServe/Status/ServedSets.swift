import Foundation
import ListFormat
import OriginConfig
import OriginStore

/// One set as the server serves it now, for `/status`, its page and `/metrics`: taken from the
/// installed generations, so a primary and a follower report their sets alike.
package struct ServedSetActivity: Encodable, Sendable, Equatable {
    var name: String
    var target: String
    var upstreams: [String]
    /// True for the set also served at the root URLs.
    var isDefault: Bool
    var manifestSHA256: String?
    var publishedAt: Date?
    var generation: Int?
    var lists: Int
    var rules: Int
    /// The set's last refresh and the ABP lines its last publish dropped because WebKit rejected
    /// their rules; nil until reported. A set other than the default one has its own (a failure
    /// names only its problem); the default set's is the whole refresh's, whose error names any set
    /// that failed.
    var lastRefresh: OperatorStatus.RefreshStatus?
    var isolatedLines: [IsolatedLine]?

    private enum CodingKeys: String, CodingKey {
        case name, target, upstreams
        case isDefault = "default"
        case manifestSHA256, publishedAt, generation, lists, rules, lastRefresh, isolatedLines
    }

    init(definition: ListSetDefinition, isDefault: Bool, content: SiteContent?, status: OperatorStatus? = nil) {
        lastRefresh = status?.lastRefresh
        isolatedLines = status?.isolatedLines
        name = definition.name
        target = definition.target
        upstreams = definition.upstreams
        self.isDefault = isDefault
        manifestSHA256 = content?.manifest?.sha256
        publishedAt = content?.manifest?.lastModified
        let manifest = content?.manifest.flatMap { try? Manifest.decode(Data($0.identity)) }
        generation = manifest?.generation
        lists = manifest?.lists.count ?? 0
        rules = manifest?.lists.reduce(0) { $0 + $1.rules } ?? 0
    }
}

extension MetricsRenderer {
    /// The per-set families: one sample per set, labelled `set`.
    func setFamilies() -> String {
        guard !activity.sets.isEmpty else { return "" }
        var out = ""
        func family(_ name: String, _ help: String, _ value: (ServedSetActivity) -> String?) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
            for set in activity.sets {
                if let value = value(set) { out += "\(name){set=\"\(set.name)\",target=\"\(set.target)\"} \(value)\n" }
            }
        }
        family("listserver_set_installed", "1 while the set has a manifest being served.") {
            $0.manifestSHA256 == nil ? "0" : "1"
        }
        family("listserver_set_manifest_age_seconds", "Seconds since the set's served manifest was published.") { set in
            set.publishedAt.map { String(Int(activity.now.timeIntervalSince($0))) }
        }
        family("listserver_set_lists", "Lists in the set's served manifest.") { String($0.lists) }
        family("listserver_set_rules", "Rules in the set's served manifest.") { String($0.rules) }
        family(
            "listserver_set_isolated_lines",
            "ABP lines the set's last publish dropped because WebKit rejected their rules."
        ) { $0.isolatedLines.map { String($0.count) } }
        family("listserver_set_last_refresh_success", "1 when the set's last refresh published or had nothing new.") {
            $0.lastRefresh.map { $0.succeeded ? "1" : "0" }
        }
        return out
    }
}

extension StatusPage {
    /// The sets this origin serves, each with its manifest URL; empty for one unnamed set.
    func setsSection() -> String {
        guard activity.sets.count > 1 else { return "" }
        func e(_ text: String) -> String { StatusFormat.html(text) }
        var out = "<section id=\"sets\"><h2>Sets</h2><p class=\"note\">Devices choose at <a href=\"sets/\">/sets/</a>; "
        out +=
            "each set's own page has its lists, refreshes and isolated lines.</p><div class=\"scroll\"><table id=\"set-table\"><thead><tr><th>Set</th><th>Target</th>"
        out +=
            "<th>Upstreams</th><th class=\"num\">Lists</th><th class=\"num\">Rules</th><th>Published</th><th>Last refresh</th>"
        out += "<th class=\"num\">Isolated lines</th><th>Manifest</th></tr></thead><tbody>"
        for set in activity.sets {
            let page = set.isDefault ? "status" : "status?set=\(e(set.name))"
            out +=
                "<tr data-set=\"\(e(set.name))\"><td><a href=\"\(page)\">\(e(set.name))</a>\(set.isDefault ? " (default)" : "")</td>"
            out +=
                "<td>\(e(set.target))</td><td>\(e(set.upstreams.joined(separator: ", ")))</td><td class=\"num\">\(set.lists)</td>"
            out +=
                "<td class=\"num\">\(StatusFormat.count(set.rules))</td><td>\(set.publishedAt.map { e(StatusFormat.time($0)) } ?? "not yet")</td>"
            let refresh = set.lastRefresh.map { e(StatusFormat.time($0.at)) + ": " + e($0.result) } ?? "—"
            out +=
                "<td class=\"wrap\" title=\"\(e(set.lastRefresh?.error ?? ""))\">\(refresh)</td><td class=\"num\">\(set.isolatedLines?.count ?? 0)</td>"
            out += "<td><a href=\"sets/\(e(set.name))/manifest.json\">manifest</a></td></tr>"
        }
        return out + "</tbody></table></div></section>"
    }
}
