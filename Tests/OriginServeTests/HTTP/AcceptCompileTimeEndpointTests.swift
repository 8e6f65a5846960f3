import Foundation
import OriginTestSupport
import TestSupport
import Testing

@testable import OriginServe
@testable import OriginStore

@Suite struct AcceptCompileTimeEndpointTests {
    /// `POST /admin/accept-compile-time` over a real socket: 404 without a configured token, the
    /// bearer token required, then the held publish accepted and a refresh started.
    @Test func theAdminEndpointAcceptsTheHeldPublish() throws {
        let absent = try ServerHarness()
        #expect(
            try absent.request(
                "/admin/accept-compile-time", method: "POST",
                headers: ["Authorization": "Bearer x", "Content-Length": "0"]
            ).status == 404)
        absent.stop()
        let acceptance = CompileRegressionAcceptance()
        acceptance.hold("network-paths-00.0123456789ab")
        let calls = LockedLines()
        let harness = try ServerHarness(
            admin: AdminCredential(token: "s3cret"), onAdminRefresh: { calls.append("refresh") },
            onAcceptCompileTime: { acceptance.acceptHeld() })
        defer { harness.stop() }
        #expect(
            try harness.request("/admin/accept-compile-time", method: "POST", headers: ["Content-Length": "0"]).status
                == 401)
        #expect(
            try harness.request("/admin/accept-compile-time", headers: ["Authorization": "Bearer s3cret"]).status == 405
        )
        #expect(calls.all.isEmpty && !acceptance.isAccepted("network-paths-00.0123456789ab"))
        let accepted = try harness.request(
            "/admin/accept-compile-time", method: "POST",
            headers: ["Authorization": "Bearer s3cret", "Content-Length": "0"])
        #expect(accepted.status == 202)
        #expect(
            String(decoding: accepted.body, as: UTF8.self)
                == "{\"accepted\":\"network-paths-00.0123456789ab\",\"refresh\":\"accepted\"}\n")
        #expect(calls.all == ["refresh"] && acceptance.isAccepted("network-paths-00.0123456789ab"))
        let again = try harness.request(
            "/admin/accept-compile-time", method: "POST",
            headers: ["Authorization": "Bearer s3cret", "Content-Length": "0"])
        #expect(
            String(decoding: again.body, as: UTF8.self) == "{\"accepted\":null,\"refresh\":\"accepted\"}\n",
            "nothing held any more")
    }
}
