import ContentBlockerEngine
import Foundation
import OriginStore

/// Why an explain could not answer, in words an operator can act on.
package enum ExplainError: Error, CustomStringConvertible, Equatable {
    case publicSuffixListMissing(String)
    case noManifest(String)
    case badManifest(String, reason: String)
    case listUnreadable(String, path: String)
    case hashMismatch(String, expected: String, actual: String)
    case badList(RuleListError)

    package var description: String {
        switch self {
        case .publicSuffixListMissing(let path):
            return "cannot read the Public Suffix List at \(path) (apt-get install publicsuffix)"
        case .noManifest(let directory): return "no readable manifest.json in \(directory)"
        case .badManifest(let path, let reason): return "\(path) is not a format-1 manifest: \(reason)"
        case .listUnreadable(let id, let path): return "list \(id): cannot read \(path)"
        case .hashMismatch(let id, let expected, let actual):
            return
                "list \(id): the file's SHA-256 is \(actual), the manifest says \(expected); the set is damaged or mid-publish"
        case .badList(let error): return "\(error)"
        }
    }
}

extension ExplainError {
    /// The explain error for a set that failed `ManifestLists`' checks; `path` names the manifest or directory.
    package init(_ problem: ManifestLists.Problem, manifestPath: String, directory: String) {
        switch problem {
        case .badManifest(let reason): self = .badManifest(manifestPath, reason: reason)
        case .outsideSet(let id, let file):
            self = .badManifest(manifestPath, reason: "list \(id) names a file outside the set: \(file)")
        case .unreadable(let id, let file):
            self = .listUnreadable(
                id, path: directory.isEmpty ? file : URL(fileURLWithPath: directory).appendingPathComponent(file).path)
        case .hashMismatch(let id, let expected, let actual):
            self = .hashMismatch(id, expected: expected, actual: actual)
        }
    }
}
