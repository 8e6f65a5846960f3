import Foundation

/// Why a set could not be published. The previous set stays served in every case.
package enum PublishError: Error, CustomStringConvertible, Equatable {
    case emptySet
    case invalidListID(String)
    case duplicateListID(String)
    case compression(String, String)
    case reportEncoding(String)
    /// Writing into the public directory failed (disk full, permissions): path, operation, reason.
    case write(String, String)
    /// A file already on disk under a planned name has other bytes than its name promises.
    case existingFileMismatch(String)
    /// WebKit rejected these lists; nothing was published.
    case gateRejected([Publisher.GateRejection])
    /// New list versions compile too much slower than the ones they replace; held for the operator.
    case compileRegression(CompileRegressionGate.Comparison)
    /// The manifest could not be signed (libcrypto failed); nothing was published.
    case signing(String)

    package var description: String {
        switch self {
        case .emptySet:
            return "the conversion produced no lists; nothing to publish"
        case .invalidListID(let id):
            return "list id \"\(id)\" is not usable as a file name (lowercase letters, digits, '-', '_' only)"
        case .duplicateListID(let id):
            return "list id \"\(id)\" appears twice in one set"
        case .compression(let file, let reason):
            return "gzip of \(file) failed: \(reason)"
        case .reportEncoding(let reason):
            return "the conversion report could not be encoded: \(reason)"
        case .write(let path, let reason):
            return
                "writing \(path) failed: \(reason); the previous set is still served. Check free space and permissions of the public directory"
        case .existingFileMismatch(let path):
            return "\(path) exists but its bytes do not match the hash in its name; remove it and publish again"
        case .gateRejected(let rejections):
            let lists = rejections.map { "\($0.id): \($0.reason)" }.joined(separator: "; ")
            return "WebKit rejected \(lists); nothing published, the previous set is still served"
        case .compileRegression(let comparison):
            return comparison.heldDescription
        case .signing(let reason):
            return "signing the manifest failed: \(reason); the previous set is still served"
        }
    }
}
