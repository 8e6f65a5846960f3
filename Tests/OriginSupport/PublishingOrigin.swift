import Converter
import Foundation
import TestSupport

@testable import OriginConfig
@testable import OriginRefresh
@testable import OriginStore

/// A directory published into again and again, as the server does: the set stays in memory between publishes.
package struct PublishingOrigin {
    package let publisher: Publisher
    package var history: [PersistentState.PublishRecord] = []
    package var published: PublishedSet?

    package init(_ publisher: Publisher) { self.publisher = publisher }

    package mutating func publish(_ output: ConversionOutput, now: Date = Date()) throws -> Publisher.Outcome {
        let outcome = try publisher.publish(output, over: published, history: &history, now: now)
        published = outcome.published
        return outcome
    }

    /// What a restart reads back from disk.
    package func load(now: Date = Date()) throws -> PublishedSet {
        try publisher.loader.load(history: history, now: now)
    }
}

extension PublishingOrigin {
    /// A publisher into `directory` with no gate and no signer.
    package static func publisher(_ directory: String, grace: Double = 3600, gate: (any PublishGate)? = nil)
        -> Publisher
    {
        Publisher(writer: SetWriter(directory: directory), gracePeriod: grace, gate: gate, log: LogLines().log)
    }
}
