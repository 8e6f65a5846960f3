import Foundation
import Testing

@testable import Converter
@testable import OriginConfig
@testable import OriginStore

/// How the store's values become /status entries and state records.
@Suite struct StatusEntriesTests {
    static let at = Date(timeIntervalSince1970: 1_760_000_000)

    static let report = ConversionReport(
        sources: [
            ConversionReport.SourceReport(
                id: "easylist", lines: 12, rules: 10, converted: 7,
                skipped: [
                    "cosmetic": .init(count: 3, examples: ["##.ad"]), "duplicate": .init(count: 1, examples: ["||a^"]),
                ]),
            ConversionReport.SourceReport(
                id: "easyprivacy", lines: 6, rules: 5, converted: 4,
                skipped: ["duplicate": .init(count: 1, examples: ["||b^"])]),
        ], lists: [])

    @Test func theConversionSummaryTotalsEverySource() {
        let summary = OperatorStatus.ConversionSummary(Self.report, outputRules: 9)
        #expect(
            summary
                == OperatorStatus.ConversionSummary(
                    inputRules: 15, converted: 11, skipped: 5, skippedByReason: ["cosmetic": 3, "duplicate": 2],
                    outputRules: 9))
    }

    @Test func skippedRulesAreByReasonMostFrequentFirstWithTheFirstExample() {
        #expect(
            OperatorStatus.SkippedRules.summary(of: Self.report) == [
                OperatorStatus.SkippedRules(reason: "cosmetic", count: 3, example: "##.ad"),
                OperatorStatus.SkippedRules(reason: "duplicate", count: 2, example: "||a^"),
            ])
    }

    @Test func anUpstreamIsSeededFromItsRecordOrElseTheSnapshot() {
        var state = PersistentState()
        state.upstreams["easylist"] = .fetched(
            etag: "\"e1\"", lastModified: "Mon, 13 Oct 2025 00:00:00 GMT", at: Self.at, rules: 70, sha256: "ab")
        state.lastAttempts = ["easylist": .init(at: Self.at, result: "updated", httpStatus: 200, error: nil)]
        func seeded(_ id: String) -> OperatorStatus.UpstreamStatus {
            .init(Configuration.Upstream(id: id, url: "https://" + id), state: state, snapshotLabel: "2025-10")
        }
        #expect(
            seeded("easylist")
                == .init(
                    id: "easylist", url: "https://easylist", source: UpstreamSource.upstream,
                    sourceDate: ISO8601DateFormatter().string(from: Self.at), lastFetchAt: Self.at,
                    lastAttemptAt: Self.at, lastResult: "updated", lastHTTPStatus: 200, etag: "\"e1\"",
                    lastModified: "Mon, 13 Oct 2025 00:00:00 GMT", rules: 70))
        #expect(
            seeded("easyprivacy")
                == .init(
                    id: "easyprivacy", url: "https://easyprivacy", source: UpstreamSource.bundledSnapshot,
                    sourceDate: "2025-10"))
    }

    @Test func theBoardsUpstreamEntryIsTheOneItHoldsOrANewOneOnTheSnapshot() {
        var status = OperatorStatus()
        status.upstreams = [.init(id: "easylist", url: "https://e", source: UpstreamSource.upstream, rules: 3)]
        #expect(status.upstream(id: "easylist", url: "https://other") == status.upstreams[0])
        #expect(
            status.upstream(id: "easyprivacy", url: "https://p")
                == .init(id: "easyprivacy", url: "https://p", source: UpstreamSource.bundledSnapshot))
    }

    @Test func aSnapshotCopyHasNoValidatorsAndWasNeverFetched() {
        let copy = PersistentState.Upstream.bundledSnapshot(label: "2025-10", rules: 5, sha256: "cd")
        #expect(
            copy
                == PersistentState.Upstream(
                    etag: nil, lastModified: nil, source: UpstreamSource.bundledSnapshot, sourceDate: "2025-10",
                    fetchedAt: nil, rules: 5, sha256: "cd"))
    }
}
