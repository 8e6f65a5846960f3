import Converter
import Foundation
import OriginStore
import WebKitCompiler

/// Chooses the publish gate from `publish.verifyWithWebKit`: "off" none (WebKit is never loaded),
/// "on" the WebKit gate failing closed when WebKitGTK does not load, "auto" the gate when it does.
package enum GateSelection {
    package static func make(setting: String, log: Log, helper: WebKitCompiler.Helper = .thisExecutable()) throws -> (
        any PublishGate
    )? {
        switch setting {
        case "off": return nil
        case "on": return DeferredWebKitGate(helper: helper, required: true, log: log)
        default: return DeferredWebKitGate(helper: helper, required: false, log: log)
        }
    }
}

/// The WebKit gate, probed on first use (on the refresh queue), so starting the server and
/// serving the last set never waits for WebKit to load. Its helpers stay up between close batches.
package final class DeferredWebKitGate: PublishGate, @unchecked Sendable {
    private let pool: WebKitCompilerPool
    /// "on": a missing WebKit rejects every list (fail closed). "auto": it disables the gate.
    private let required: Bool
    private let log: Log
    private let lock = NSLock()
    private var probed: Result<String, WebKitCompileFailure>?
    package let compileTimes: CompileTimes? = CompileTimes()

    package init(helper: WebKitCompiler.Helper, required: Bool, log: Log) {
        pool = WebKitCompilerPool(helper: helper)
        self.required = required
        self.log = log
    }

    private func probe() -> Result<String, WebKitCompileFailure> {
        lock.lock()
        defer { lock.unlock() }
        if let probed { return probed }
        let result = Result { () throws(WebKitCompileFailure) in try pool.probe() }
        switch result {
        case .success(let version):
            log.info("publish gate: WebKitGTK \(version) compiles every new list before it is published")
        case .failure(let error):
            log.warning(
                "publish gate: \(error)"
                    + (required ? "; lists are rejected until it works" : "; publishing without it"))
        }
        probed = result
        return result
    }

    package func rejection(of list: RuleList) -> String? { rejections(of: [list])[0] }

    package func rejections(of lists: [RuleList]) -> [String?] {
        if case .failure(let error) = probe() {
            return lists.map { _ in required ? "\(error)" : nil }
        }
        // A helper that fails this time fails its lists closed: the previous versions stay.
        let verdicts = pool.compile(lists.map { WebKitInput(id: $0.id, json: $0.json, rules: $0.ruleCount) })
        for (list, verdict) in zip(lists, verdicts) where verdict.ok {
            compileTimes?.record(list.id, seconds: verdict.seconds)
        }
        return verdicts.map(\.error)
    }

    /// One helper run, so the lists share one process and its conditions (no parallel split).
    package func compileSeconds(of lists: [RuleList]) -> [Double?] {
        guard case .success = probe(), let compiler = try? WebKitCompiler(helper: pool.helper),
            let verdicts = try? compiler.compile(
                lists.map { WebKitInput(id: $0.id, json: $0.json, rules: $0.ruleCount) }),
            verdicts.count == lists.count
        else {
            return lists.map { _ in nil }
        }
        return verdicts.map { $0.ok ? $0.seconds : nil }
    }
}
