import Converter
import Foundation
import OriginStore

/// What one refresh did, as values: the app (`RefreshReporting`) turns it into /status fields,
/// metrics and log lines in one place; nothing in the refresh core writes status itself.
package struct RefreshOutcome: Sendable {
    package var mode: FetchStage.Mode
    package var startedAt: Date
    /// One per upstream fetched (online refreshes only), in configuration order.
    package var upstreams: [UpstreamReport] = []
    /// Upstreams whose copy in use became the bundled snapshot during this refresh.
    var snapshotsInUse: [SnapshotInUse] = []
    package var set: SetOutcome = .unchanged
    /// `state.json` could not be saved.
    var stateSaveError: StateError?
    /// The set now published, when it changed (to hand to the HTTP layer); nil otherwise.
    package var published: PublishedSet?
    /// ABP lines dropped from this publish because WebKit rejected their rules.
    package var isolatedLines: [IsolatedLine] = []
    /// The other sets, in configuration order (the default set's is `set`).
    package var otherSets: [OtherSetOutcome] = []
    /// The gate's compile seconds of this set's new lists, by list id, taken right after its
    /// publish (sets share the gate and list ids); nil: take them when reporting.
    var compiledSeconds: [String: Double]?

    /// The refresh as a whole: published, unchanged, or failed with every problem found.
    package var result: RefreshResult {
        switch set {
        case .failed(let failure):
            return .failed(failure.description)
        case .published(let publish, _):
            return publish.manifestChanged
                ? .published : (problems.isEmpty ? .unchanged : .failed(problems.joined(separator: "; ")))
        case .unchanged, .unchangedFilesExpired, .keptSetOfUnknownOrigin:
            if !problems.isEmpty { return .failed(problems.joined(separator: "; ")) }
            return otherSets.contains {
                if case .published(let publish, _) = $0.set { publish.manifestChanged } else { false }
            } ? .published : .unchanged
        }
    }

    /// The problems beside a successful publish (an upstream that could not be refreshed).
    var problemsBesidePublish: String? {
        guard case .published = result else { return nil }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    /// Upstreams that could not be refreshed, and a state file that could not be saved.
    private var problems: [String] {
        var problems = upstreams.compactMap { report in report.outcome.problem.map { "\(report.id): \($0)" } }
        if let stateSaveError { problems.append("\(stateSaveError)") }
        problems += otherSets.compactMap(\.problem)
        return problems
    }
}

package struct UpstreamReport: Sendable {
    package var id: String
    package var url: String
    package var at: Date
    package var outcome: UpstreamOutcome
}

package enum UpstreamOutcome: Sendable {
    /// A new body passed the checks and is now the copy in use.
    case updated(PersistentState.Upstream, bytes: Int)
    /// 304: the copy in use stays.
    case notModified
    /// A body failed the checks; `keptAt` is where it was kept for inspection (or why it could not be).
    case rejected(UpstreamBodyCheck.Rejection, kept: Result<String, StateError>)
    /// No usable answer from upstream after the retries.
    case fetchFailed(FetchError)
    /// A good body could not be kept as the last good copy.
    case keepFailed(StateError)

    /// The value of `/status` `upstreams[].lastResult`.
    package var label: String {
        switch self {
        case .updated: return "updated"
        case .notModified: return "not-modified"
        case .rejected: return "rejected"
        case .fetchFailed, .keepFailed: return "failed"
        }
    }

    /// True when the copy in use is current (updated or not modified).
    package var isCurrent: Bool {
        switch self {
        case .updated, .notModified: return true
        case .rejected, .fetchFailed, .keepFailed: return false
        }
    }

    /// The attempt as `state.json` keeps it.
    func attempt(at: Date) -> PersistentState.FetchAttempt {
        PersistentState.FetchAttempt(at: at, result: label, httpStatus: httpStatus, error: problem)
    }

    /// The HTTP status the attempt ended with, when it got one.
    var httpStatus: Int? {
        switch self {
        case .updated, .rejected, .keepFailed: return 200
        case .notModified: return 304
        case .fetchFailed(let error): if case .httpStatus(_, let code) = error { return code } else { return nil }
        }
    }

    /// What went wrong, for the refresh's error; nil when the copy in use is current.
    package var problem: String? {
        switch self {
        case .updated, .notModified: return nil
        case .rejected(let rejection, _): return "rejected: \(rejection)"
        case .fetchFailed(let error): return error.description
        case .keepFailed(let error): return "\(error)"
        }
    }
}

package struct SnapshotInUse: Sendable {
    package var id: String
    package var url: String
    package var label: String
    package var rules: Int
}

package enum SetOutcome: Sendable {
    /// The copies in use are the ones the published set was built from.
    case unchanged
    /// Nothing new, but files past their grace period were removed.
    case unchangedFilesExpired([String])
    /// The set on disk has no recorded sources and some upstream was never fetched: it may be newer.
    case keptSetOfUnknownOrigin
    /// Converted and published (possibly to the same manifest bytes).
    case published(Publisher.Outcome, ConversionReport)
    case failed(SetFailure)
}

package enum SetFailure: Error, Sendable, CustomStringConvertible {
    case noUsableCopy([String])
    case conversion(String)
    case publish(PublishError)
    /// WebKit rejected lists and the lines behind the rejected rules could not be isolated.
    case isolation(String)
    /// The refresh passed `refresh.deadlineSeconds` before `stage`.
    case deadline(stage: String, seconds: Double)

    package var description: String {
        switch self {
        case .noUsableCopy(let ids):
            return
                "no usable copy of \(ids.joined(separator: ", ")) (no last good copy and no readable snapshot); keeping the published set"
        case .conversion(let reason): return "conversion failed: \(reason)"
        case .publish(let error): return "publish failed: \(error)"
        case .isolation(let reason): return "publish held: \(reason); keeping the published set"
        case .deadline(let stage, let seconds):
            return
                "gave up before \(stage): the refresh ran past its \(Int(seconds)) s deadline (refresh.deadlineSeconds); keeping the published set"
        }
    }
}
