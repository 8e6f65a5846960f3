import ContentBlockerEngine
import Foundation

/// One explain answer: the engine's explanation with each deciding rule's ABP lines, the skipped
/// lines that concern the request, and the set it is about. The CLI and `GET /explain` both
/// build it with `make` and render it with `ExplanationJSON.render` or `ExplanationText.human`.
package struct ExplainAnswer: Sendable, Equatable {
    var explanation: Explanation
    package var skipped: [SkippedSource]
    /// `complete`, or why rules lack sources (`SetProvenance.status`).
    package var provenance: String
    package var manifestSHA256: String

    package static func make(
        _ request: BlockerRequest, engine: ContentBlockerEngine, provenance: SetProvenance,
        manifestSHA256: String
    ) -> ExplainAnswer {
        ExplainAnswer(
            explanation: engine.explain(request, provenance: provenance), skipped: provenance.skipped(for: request),
            provenance: provenance.status, manifestSHA256: manifestSHA256)
    }
}
