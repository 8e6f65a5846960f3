/// One `access` line per answered request, when the configuration asks for it:
/// `access PEER METHOD TARGET STATUS BYTES MICROSECONDSus`.
struct AccessLog {
    let enabled: Bool
    let write: @Sendable (String) -> Void

    func record(
        peer: String, head: HTTPRequestHead?, bytes: UnsafeBufferPointer<UInt8>, answer: HTTPAnswer, startedAt: UInt64
    ) {
        guard enabled else { return }
        let method: String
        switch head?.method {
        case .get?: method = "GET"
        case .head?: method = "HEAD"
        case .post?: method = "POST"
        case .options?: method = "OPTIONS"
        case .other?: method = "OTHER"
        case nil: method = "-"
        }
        let target =
            head.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0.target]), as: UTF8.self) } ?? "-"
        let micros = (MonotonicClock.now() &- startedAt) / 1000
        write("access \(peer) \(method) \(target) \(answer.status) \(answer.bytes) \(micros)us")
    }
}
