import Converter
import Foundation
import ListSync
import ManifestSigning
import TestSupport
import Testing

@testable import OriginConfig
@testable import OriginRefresh
@testable import OriginStore

/// Publishes successive sets into one directory, as an origin would.
package final class SigningOrigin {
    package init() {}
    package let scratch = ScratchDirectory("signed-sync")
    package var history: [PersistentState.PublishRecord] = []
    package var current: PublishedSet?

    package func publisher(_ signer: ManifestSigner?) -> Publisher {
        Publisher(
            writer: SetWriter(directory: scratch.sub("public")), gracePeriod: 86_400 * 30, gate: nil,
            log: LogLines().log, signer: signer)
    }

    /// What a restarted origin starts from: the set read back from disk, nothing held in memory.
    package func restart() throws {
        current = try publisher(nil).loader.load(history: history)
    }

    package func publish(_ signer: ManifestSigner?, tag: String, now: Date = Date()) throws -> PublishedSet {
        let publisher = publisher(signer)
        let list = RuleList(id: "ads", json: PublishedSetForTests.ruleJSON(tag: tag, count: 20), ruleCount: 20)
        let output = ConversionOutput(
            lists: [list], report: ConversionReport(sources: [], lists: []), layoutState: Array("{}".utf8))
        current = try publisher.publish(output, over: current, history: &history, now: now).published
        return current!
    }
}

extension SigningOrigin {
    package static func signer(validity: Double = 14 * 86_400) throws -> ManifestSigner {
        ManifestSigner(key: try ManifestSigningKey.generate(), validity: validity)
    }

    /// Every file under the store, by relative path: what "the previous set intact" means.
    package static func snapshot(_ directory: String) -> [String: Data] {
        var out: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let name = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory + "/" + name, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                out[name] = FileManager.default.contents(atPath: directory + "/" + name)
            }
        }
        return out
    }

    package static func refusal(_ client: SyncClient) async -> ManifestTrustError? {
        do {
            _ = try await client.sync()
            return nil
        } catch let error as ManifestTrustError {
            return error
        } catch {
            Issue.record("expected a trust refusal, got \(error)")
            return nil
        }
    }
}
