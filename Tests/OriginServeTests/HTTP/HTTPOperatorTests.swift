import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import ListOrigin
@testable import OriginServe
@testable import OriginStore

/// /healthz, /status, /metrics, POST /admin/refresh and the access log.
@Suite struct HTTPOperatorTests {
    @Test func healthzFollowsTheInstalledManifest() throws {
        let harness = try ServerHarness(content: .empty)
        defer { harness.stop() }
        let down = try harness.request("/healthz")
        #expect(down.status == 503)
        #expect(down.header("Cache-Control") == "no-store")
        #expect(try harness.request("/manifest.json").status == 503)
        harness.server.install(try ServerHarness.sampleContent())
        let up = try harness.request("/healthz")
        #expect(up.status == 200)
        #expect(up.header("Cache-Control") == "no-store")
        #expect(try harness.request("/healthz", method: "HEAD").status == 200)
    }

    @Test func statusReportsPublishingAndServerCounters() throws {
        let board = StatusBoard()
        let generated = Date(timeIntervalSince1970: 1_760_000_000)
        board.update { status in
            status.manifestSHA256 = "abc123"
            status.generatedAt = generated
            status.lists = [
                OperatorStatus.ListStatus(
                    id: "network-00", file: "network-00.0123.json", rules: 1234, bytes: 5678, gzipBytes: 900)
            ]
            status.upstreams = [
                OperatorStatus.UpstreamStatus(
                    id: "easylist", url: "https://easylist.to/easylist/easylist.txt", source: "upstream",
                    sourceDate: nil, lastFetchAt: generated,
                    lastResult: "updated", lastHTTPStatus: 200, etag: "\"e1\"", lastModified: nil, lastError: nil,
                    rules: 70000)
            ]
            status.lastRefresh = OperatorStatus.RefreshStatus(
                at: generated, result: "published", error: nil, nextAt: nil)
            status.conversion = OperatorStatus.ConversionSummary(
                inputRules: 10, converted: 8, skipped: 2, skippedByReason: ["cosmetic": 2], outputRules: 8)
            status.skippedRules = [OperatorStatus.SkippedRules(reason: "cosmetic", count: 2, example: "##.ad")]
        }
        let harness = try ServerHarness(status: board)
        defer { harness.stop() }
        _ = try harness.request("/manifest.json")
        _ = try harness.request("/missing")
        let response = try harness.request("/status")
        #expect(response.status == 200)
        #expect(response.header("Cache-Control") == "no-store")
        #expect(response.header("Content-Type") == "application/json")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        // The status's fields and the server's in one object; the skipped-rule examples are the page's only.
        #expect(
            Set(json.keys) == [
                "version", "startedAt", "uptimeSeconds", "healthy", "manifestSHA256", "generatedAt",
                "servedManifestSHA256", "servedManifestPublishedAt", "lists", "upstreams", "lastRefresh", "conversion",
                "http", "sets",
            ])
        #expect(json["version"] as? String == HTTPServer.version)
        #expect(json["uptimeSeconds"] is Int)
        #expect(json["manifestSHA256"] as? String == "abc123")
        #expect(json["generatedAt"] as? String == "2025-10-09T08:53:20Z")
        #expect(json["servedManifestSHA256"] as? String == harness.content.manifest?.sha256)
        #expect(json["servedManifestPublishedAt"] as? String == "2020-10-19T10:00:00Z")
        let lists = try #require(json["lists"] as? [[String: Any]])
        #expect(lists.first?["rules"] as? Int == 1234)
        let upstreams = try #require(json["upstreams"] as? [[String: Any]])
        #expect(upstreams.first?["lastHTTPStatus"] as? Int == 200)
        #expect(upstreams.first?["source"] as? String == "upstream")
        #expect((json["conversion"] as? [String: Any])?["skipped"] as? Int == 2)
        #expect((json["lastRefresh"] as? [String: Any])?["result"] as? String == "published")
        let http = try #require(json["http"] as? [String: Any])
        #expect((http["requestsTotal"] as? Int ?? 0) >= 2)
        #expect((http["errorResponsesTotal"] as? Int ?? 0) >= 1)
        let requests = try #require(http["requests"] as? [String: [String: Int]])
        #expect(requests["manifest"]?["200"] == 1)
        #expect(requests["not_found"]?["404"] == 1)
    }

    @Test func metricsAreValidPrometheusText() throws {
        let board = StatusBoard()
        board.update { status in
            status.generatedAt = Date(timeIntervalSinceNow: -100)
            status.lists = [
                OperatorStatus.ListStatus(id: "network-00", file: "nope.json", rules: 42, bytes: 1, gzipBytes: 1)
            ]
            status.lastRefresh = OperatorStatus.RefreshStatus(at: Date(), result: "failed", error: "boom", nextAt: nil)
            status.upstreams = [
                OperatorStatus.UpstreamStatus(
                    id: "easylist", url: "u", source: "upstream", lastFetchAt: Date(), lastResult: "failed")
            ]
        }
        let harness = try ServerHarness(status: board)
        defer { harness.stop() }
        _ = try harness.request("/manifest.json", headers: ["Accept-Encoding": "gzip"])
        let response = try harness.request("/metrics")
        #expect(response.status == 200)
        #expect(response.header("Cache-Control") == "no-store")
        #expect(response.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        let text = response.bodyText
        #expect(text.contains("listserver_http_requests_total{route=\"manifest\",status=\"200\"} 1\n"))
        #expect(text.contains("listserver_list_rules{list=\"network-00\"} 42\n"))
        #expect(text.contains("listserver_last_refresh_success{result=\"failed\"} 0\n"))
        #expect(text.contains("listserver_http_open_connections "))
        #expect(text.contains("listserver_list_age_seconds{list=\"network-00\"} "))
        #expect(
            text.contains("listserver_upstream_last_fetch_timestamp_seconds{upstream=\"easylist\",result=\"failed\"} "))
        // Every sample belongs to a family announced with HELP and TYPE first.
        var announced = Set<String>()
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# HELP ") {
                announced.insert(String(line.split(separator: " ")[2]))
            } else if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                #expect(["counter", "gauge"].contains(String(parts[3])))
            } else {
                let name = String(line.prefix { $0 != "{" && $0 != " " })
                #expect(announced.contains(name), "\(line)")
                #expect(Double(line.split(separator: " ").last.map(String.init) ?? "") != nil, "\(line)")
            }
        }
    }

    @Test func adminRefreshIsAbsentWithoutAToken() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let response = try harness.request(
            "/admin/refresh", method: "POST", headers: ["Authorization": "Bearer x", "Content-Length": "0"])
        #expect(response.status == 404)
        #expect(try harness.request("/admin/refresh").status == 404)
    }

    @Test func adminRefreshNeedsTheBearerToken() throws {
        let calls = LockedLines()
        let harness = try ServerHarness(
            admin: AdminCredential(token: "s3cret-token"), onAdminRefresh: { calls.append("refresh") })
        defer { harness.stop() }
        let missing = try harness.request("/admin/refresh", method: "POST", headers: ["Content-Length": "0"])
        #expect(missing.status == 401)
        #expect(missing.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        #expect(missing.header("Cache-Control") == "no-store")
        for wrong in ["Bearer s3cret-toke", "Bearer s3cret-token2", "Basic czNjcmV0", "Bearer ", "s3cret-token"] {
            let response = try harness.request(
                "/admin/refresh", method: "POST", headers: ["Authorization": wrong, "Content-Length": "0"])
            #expect(response.status == 401, "\(wrong)")
        }
        #expect(calls.all.isEmpty)
        let get = try harness.request("/admin/refresh", headers: ["Authorization": "Bearer s3cret-token"])
        #expect(get.status == 405)
        #expect(get.header("Allow") == "POST")
        let accepted = try harness.request(
            "/admin/refresh", method: "POST", headers: ["Authorization": "bearer s3cret-token", "Content-Length": "2"])
        #expect(accepted.status == 202)
        #expect(accepted.header("Cache-Control") == "no-store")
        #expect(calls.all == ["refresh"])
        #expect(AdminCredential.fromEnvironment(variable: "TOKEN", environment: [:]) == nil)
        #expect(AdminCredential.fromEnvironment(variable: "TOKEN", environment: ["TOKEN": ""]) == nil)
        #expect(
            AdminCredential.fromEnvironment(variable: "TOKEN", environment: ["TOKEN": "t"])?.token == Array("t".utf8))
    }

    @Test func accessLogIsOneLinePerRequestWhenEnabled() throws {
        let quiet = try ServerHarness()
        _ = try quiet.request("/manifest.json")
        quiet.stop()
        #expect(!quiet.log.contains { $0.contains(" access ") })

        let logged = try ServerHarness { $0.accessLog = true }
        _ = try logged.request("/manifest.json?x=1")
        _ = try logged.request("/missing.json", method: "HEAD")
        logged.stop()
        let lines = logged.log.filter { $0.contains(" access ") }
        #expect(lines.count == 2)
        #expect(lines.first?.contains("127.0.0.1:") == true)
        #expect(lines.first?.contains("GET /manifest.json?x=1 200 ") == true)
        #expect(lines.last?.contains("HEAD /missing.json 404 ") == true)
    }
}
