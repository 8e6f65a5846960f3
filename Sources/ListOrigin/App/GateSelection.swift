import Converter
import Foundation

/// Chooses the publish gate from `publish.verifyWithWebKit`: "off" none, "on" the WebKit verifier
/// (an error at start when its helper is missing), "auto" the verifier when WebKitGTK works here.
enum GateSelection {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    static func make(setting: String, log: Log) throws -> (any PublishGate)? {
        switch setting {
        case "off":
            return nil
        case "on":
            guard let location = WebKitToolLocation.find() else {
                throw Unavailable(description: "publish.verifyWithWebKit is \"on\" but \(WebKitToolLocation.scriptRelativePath) was not found; set \(WebKitToolLocation.scriptOverride) or use \"auto\"/\"off\"")
            }
            return DeferredWebKitGate(location: location, required: true, log: log)
        default:
            guard let location = WebKitToolLocation.find() else {
                log.warning("publish gate: WebKit helper not found; publishing without compiling lists first")
                return nil
            }
            return DeferredWebKitGate(location: location, required: false, log: log)
        }
    }
}

/// The WebKit gate, probed on first use (on the refresh queue), so starting the server and
/// serving the last set never waits for WebKit to load. Compiles each batch in one helper run.
final class DeferredWebKitGate: PublishGate, @unchecked Sendable {
    private let location: WebKitToolLocation
    /// "on": a missing WebKit rejects every list (fail closed). "auto": it disables the gate.
    private let required: Bool
    private let log: Log
    private let lock = NSLock()
    private var probed: Result<WebKitVerifier, Error>?
    let compileTimes: CompileTimes? = CompileTimes()

    init(location: WebKitToolLocation, required: Bool, log: Log) {
        self.location = location
        self.required = required
        self.log = log
    }

    private func verifier() -> Result<WebKitVerifier, Error> {
        lock.lock()
        defer { lock.unlock() }
        if let probed { return probed }
        let result = Result { try WebKitVerifier.probe(location) }
        switch result {
        case .success(let verifier): log.info("publish gate: WebKitGTK \(verifier.webKitVersion) compiles every new list before it is published")
        case .failure(let error): log.warning("publish gate: \(error)" + (required ? "; lists are rejected until it works" : "; publishing without it"))
        }
        probed = result
        return result
    }

    func rejection(of list: RuleList) -> String? { rejections(of: [list])[0] }

    func rejections(of lists: [RuleList]) -> [String?] {
        switch verifier() {
        case .failure(let error):
            return lists.map { _ in required ? "\(error)" : nil }
        case .success(let verifier):
            return Self.verifyInParallel(lists, with: verifier, times: compileTimes)
        }
    }

    /// One helper run, so the lists share one process and its conditions (no parallel split).
    func compileSeconds(of lists: [RuleList]) -> [Double?] {
        guard case .success(let verifier) = verifier(), let verdicts = try? verifier.verify(lists), verdicts.count == lists.count else {
            return lists.map { _ in nil }
        }
        return verdicts.map { $0.ok ? $0.seconds : nil }
    }

    /// WebKit compiles one list on one core; split the batch (balanced by size) over the cores.
    private static func verifyInParallel(_ lists: [RuleList], with verifier: WebKitVerifier, times: CompileTimes?) -> [String?] {
        let workers = max(1, min(lists.count, ProcessInfo.processInfo.activeProcessorCount))
        var groups = [[Int]](repeating: [], count: workers)
        var load = [Int](repeating: 0, count: workers)
        for index in lists.indices.sorted(by: { lists[$0].json.count > lists[$1].json.count }) {
            let lightest = load.indices.min { load[$0] < load[$1] }!
            groups[lightest].append(index)
            load[lightest] += lists[index].json.count
        }
        var verdicts = [String?](repeating: "WebKit returned no verdict", count: lists.count)
        verdicts.withUnsafeMutableBufferPointer { slots in
            let base = slots.baseAddress!
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let group = groups[worker]
                do {
                    // Each worker writes only the slots of its own lists.
                    let results = try verifier.verify(group.map { lists[$0] })
                    for (index, result) in zip(group, results) {
                        base[index] = result.error
                        if result.ok { times?.record(lists[index].id, seconds: result.seconds) }
                    }
                } catch {
                    // WebKit could not run this time: fail closed, the previous versions stay.
                    for index in group { base[index] = "\(error)" }
                }
            }
        }
        return verdicts
    }
}
