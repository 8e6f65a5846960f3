import Foundation
import OriginStore

/// Renders `GET /metrics` in the Prometheus text exposition format (version 0.0.4): one
/// `# HELP` and `# TYPE` line per metric family, then its samples.
package struct MetricsRenderer {
    package var status: OperatorStatus
    var activity: ServerActivity

    package func render() -> [UInt8] {
        var out = ""
        func family(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for sample in samples {
                out +=
                    sample.labels.isEmpty ? "\(name) \(sample.value)\n" : "\(name){\(sample.labels)} \(sample.value)\n"
            }
        }
        let metrics = activity.metrics
        var requestSamples: [(labels: String, value: String)] = []
        for count in metrics.requestCounts {
            requestSamples.append(("route=\"\(count.route)\",status=\"\(count.status)\"", String(count.count)))
        }
        family(
            "listserver_http_requests_total", "counter", "HTTP requests answered, by route and status code.",
            requestSamples)
        family(
            "listserver_http_response_bytes_total", "counter", "Bytes written to clients (heads and bodies).",
            [("", String(metrics.bytesSent))])
        family(
            "listserver_http_open_connections", "gauge", "Client connections currently open.",
            [("", String(activity.openConnections))])
        family(
            "listserver_http_refused_connections_total", "counter",
            "Connections refused at maxConnections or while shutting down.",
            [("", String(metrics.refusedConnections))])
        family(
            "listserver_uptime_seconds", "gauge", "Seconds since the server started.",
            [("", String(Int(activity.now.timeIntervalSince(activity.startedAt))))])
        family(
            "listserver_manifest_installed", "gauge", "1 while a manifest is being served (healthz is 200).",
            [("", activity.manifestInstalled ? "1" : "0")])
        if let generated = status.generatedAt {
            family(
                "listserver_manifest_age_seconds", "gauge", "Seconds since the served manifest was generated.",
                [("", seconds(activity.now.timeIntervalSince(generated)))])
        }
        if let signing = status.signing, let expiry = signing.expiryDate {
            family(
                "listserver_signature_expiry_seconds", "gauge",
                "Seconds until the served manifest's signature expires (devices refuse it after).",
                [
                    (
                        "key_id=\"\(signing.signedByKeyId ?? signing.keyId)\"",
                        seconds(expiry.timeIntervalSince(activity.now))
                    )
                ])
        }
        var ageSamples: [(labels: String, value: String)] = []
        var ruleSamples: [(labels: String, value: String)] = []
        for list in status.lists {
            let labels = "list=\"\(escape(list.id))\""
            if let date = activity.fileDates[list.file] ?? status.generatedAt {
                ageSamples.append((labels, seconds(activity.now.timeIntervalSince(date))))
            }
            ruleSamples.append((labels, String(list.rules)))
        }
        family("listserver_list_age_seconds", "gauge", "Seconds since each served list file was published.", ageSamples)
        family("listserver_list_rules", "gauge", "Rules in each served list.", ruleSamples)
        if let refresh = status.lastRefresh {
            family(
                "listserver_last_refresh_timestamp_seconds", "gauge", "When the last refresh finished (Unix time).",
                [("", seconds(refresh.at.timeIntervalSince1970))])
            family(
                "listserver_last_refresh_success", "gauge",
                "1 if the last refresh published or found nothing new, 0 if it failed.",
                [("result=\"\(escape(refresh.result))\"", refresh.succeeded ? "1" : "0")])
        }
        var fetchSamples: [(labels: String, value: String)] = []
        for upstream in status.upstreams {
            guard let at = upstream.lastAttemptAt ?? upstream.lastFetchAt else { continue }
            fetchSamples.append(
                (
                    "upstream=\"\(escape(upstream.id))\",result=\"\(escape(upstream.lastResult ?? "none"))\"",
                    seconds(at.timeIntervalSince1970)
                ))
        }
        family(
            "listserver_upstream_last_fetch_timestamp_seconds", "gauge",
            "When each upstream was last fetched or tried (Unix time), by the attempt's result.",
            fetchSamples)
        if let isolated = status.isolatedLines {
            family(
                "listserver_isolated_lines", "gauge",
                "ABP lines the last publish left out because WebKit rejected their rules.",
                [("", String(isolated.count))])
            family(
                "listserver_isolated_line", "gauge",
                "1 per ABP line left out because WebKit rejected its rules, with WebKit's error.",
                isolated.map {
                    (
                        "upstream=\"\(escape($0.upstream))\",line=\"\($0.line)\",list=\"\(escape($0.list))\",error=\"\(escape(String($0.error.prefix(200))))\"",
                        "1"
                    )
                })
        }
        if let comparison = status.compileRegression {
            family(
                "listserver_compile_regression_held", "gauge",
                "1 while new list versions that compile too slowly hold the publish (accept: POST /admin/accept-compile-time).",
                [("", comparison.held && !comparison.accepted ? "1" : "0")])
            family(
                "listserver_compile_set_ratio", "gauge",
                "The set's WebKit compile time with the last new versions against the versions they replace.",
                [("", String(format: "%.3f", comparison.setRatio))])
        }
        if let follow = status.follow {
            let primary = "primary=\"\(escape(follow.primary))\""
            if let success = follow.lastSuccessAt {
                family(
                    "listserver_follow_last_success_timestamp_seconds", "gauge",
                    "When the primary last confirmed the served set (Unix time).",
                    [(primary, seconds(success.timeIntervalSince1970))])
            }
            if let lag = follow.lagSeconds(now: activity.now) {
                family(
                    "listserver_follow_lag_seconds", "gauge",
                    "Seconds since the primary last confirmed the served set.", [(primary, String(lag))])
            }
            if let lag = follow.lagGenerations {
                family(
                    "listserver_follow_lag_generations", "gauge",
                    "Generations the served set is behind the newest the primary offered.",
                    [(primary, String(lag))])
            }
            family(
                "listserver_follow_refusals_total", "counter",
                "Primary manifests refused (signature, generation, expiry, hash).",
                [(primary, String(follow.refusals))])
            family(
                "listserver_follow_failures_total", "counter",
                "Polls that could not fetch the primary's manifest or files.",
                [(primary, String(follow.failures))])
            family(
                "listserver_follow_last_poll_ok", "gauge",
                "1 if the last poll installed or confirmed the primary's set, 0 if refused or failed.",
                [(primary + ",result=\"\(escape(follow.lastResult ?? "none"))\"", follow.lastError == nil ? "1" : "0")])
        }
        out += setFamilies()
        return Array(out.utf8)
    }

    private func seconds(_ value: TimeInterval) -> String {
        String(Int(value.rounded(.down)))
    }

    /// Label values escape backslash, double quote and newline.
    private func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
