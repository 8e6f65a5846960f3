import OriginTestSupport
import Testing

@testable import ListOrigin
@testable import OriginConfig
@testable import OriginRefresh

@Suite struct RefreshScheduleTests {
    @Test func successWaitsTheIntervalPlusJitter() {
        var refresh = Configuration.Refresh()
        refresh.intervalSeconds = 86_400
        refresh.jitterSeconds = 900
        for _ in 0..<100 {
            let delay = RefreshSource.delay(afterFailures: 0, configuration: refresh)
            #expect(delay >= 86_400 && delay <= 87_300)
        }
    }

    @Test func failuresRetrySoonerAndBackOffUpToTheInterval() {
        var refresh = Configuration.Refresh()
        refresh.intervalSeconds = 86_400
        refresh.retryAfterFailureSeconds = 600
        let first = RefreshSource.delay(afterFailures: 1, configuration: refresh)
        #expect(first >= 600 && first <= 660)
        let third = RefreshSource.delay(afterFailures: 3, configuration: refresh)
        #expect(third >= 2_400 && third <= 2_640)
        let many = RefreshSource.delay(afterFailures: 50, configuration: refresh)
        #expect(many >= 86_400 && many <= 86_400 * 1.1)
    }
}
