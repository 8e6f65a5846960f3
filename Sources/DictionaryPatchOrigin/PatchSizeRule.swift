/// A patch not at least 4× smaller than the new list's gzip is not written, because
/// a device would save too little over the full file to be worth a file, a manifest entry and a decode.
public enum PatchSizeRule {
    public static let minimumSaving = 4

    public static func decide(patchBytes: Int, gzipBytes: Int) -> PatchDecision {
        patchBytes * minimumSaving <= gzipBytes ? .write : .skip(patchBytes: patchBytes, gzipBytes: gzipBytes)
    }
}

public enum PatchDecision: Equatable, Sendable, CustomStringConvertible {
    case write
    /// The patch is larger than a quarter of the gzip: devices take the full list.
    case skip(patchBytes: Int, gzipBytes: Int)

    public var description: String {
        switch self {
        case .write: return "write"
        case .skip(let patch, let gzip):
            return "skip: the \(patch)-byte patch is not \(PatchSizeRule.minimumSaving)× smaller than the \(gzip)-byte gzip"
        }
    }
}
