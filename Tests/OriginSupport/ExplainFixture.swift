import Converter
import Foundation
import TestSupport

@testable import OriginConfig
@testable import OriginRefresh
@testable import OriginServe
@testable import OriginStore

/// The small ABP list converted and published into a directory, and a server for it.
package final class ExplainFixture {
    package let scratch = ScratchDirectory("explain-endpoint")
    package let server: ServerHarness
    package var directory: String { scratch.sub("public") }

    package init(token: String? = ExplainFixture.token) throws {
        // The real conversion's output, provenance included, so answers name their ABP lines.
        let output = try ListConverter().convert([FilterListSource(id: "small", bytes: Array(ExplainFixture.abp.utf8))])
        let publisher = Publisher(
            writer: SetWriter(directory: scratch.sub("public")), gracePeriod: 3600, gate: nil, log: LogLines().log)
        var history: [PersistentState.PublishRecord] = []
        let published = try publisher.publish(output, over: nil, history: &history, now: Date()).published
        server = try ServerHarness(
            configure: { $0.maxURIBytes = 16_384 }, content: published.content,
            admin: token.map { AdminCredential(token: $0) }, publicDirectory: scratch.sub("public"))
    }

    package func get(
        _ target: String, headers: [String: String] = ["Authorization": "Bearer \(ExplainFixture.token)"],
        method: String = "GET"
    ) throws -> HTTPTestResponse {
        try server.request(target, method: method, headers: headers)
    }

    /// GETs until the engine has loaded (bounded): 503 with Retry-After while it loads.
    package func answer(
        _ target: String, headers: [String: String] = ["Authorization": "Bearer \(ExplainFixture.token)"]
    ) async throws -> HTTPTestResponse {
        var last = try get(target, headers: headers)
        _ = try await eventually(timeout: 30, interval: 0.05) {
            last = try get(target, headers: headers)
            return last.status != 503
        }
        return last
    }

    deinit { server.stop() }
}

extension ExplainFixture {
    package static let token = "explain-s3cret"

    package static let abp = """
        [Adblock Plus 2.0]
        ||ads.example^
        @@||ads.example/allowed/*
        ||tracker.example^$important
        @@||tracker.example^
        ||cdn.example/banner.js$domain=~carve.example
        ##.generic-ad
        news.example##.site-ad
        @@||quiet.example^$generichide
        @@||whole.example^$document
        ||csp.example^$csp=script-src 'none'
        ||ads.example^
        """

    package static func query(_ url: String, page: String? = nil, type: String? = nil) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        func encode(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed)! }
        var target = "/explain?url=" + encode(url)
        if let page { target += "&page=" + encode(page) }
        if let type { target += "&type=" + encode(type) }
        return target
    }
}
