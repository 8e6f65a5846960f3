/// A patch not at least 2× smaller than the new list's gzip is not written: a device would save too
/// little over the full file to be worth a file and a decode. (It was 4× while each patch also cost
/// every device a manifest entry; with derived patch names it costs none. docs/device-cost.md.)
public enum PatchSizeRule {
    public static let minimumSaving = 2

    public static func decide(patchBytes: Int, gzipBytes: Int) -> PatchDecision {
        patchBytes * minimumSaving <= gzipBytes ? .write : .skip(patchBytes: patchBytes, gzipBytes: gzipBytes)
    }
}

public enum PatchDecision: Equatable, Sendable, CustomStringConvertible {
    case write
    /// The patch is larger than half the gzip: devices take the full list.
    case skip(patchBytes: Int, gzipBytes: Int)

    public var description: String {
        switch self {
        case .write: return "write"
        case .skip(let patch, let gzip):
            return
                "skip: the \(patch)-byte patch is not \(PatchSizeRule.minimumSaving)× smaller than the \(gzip)-byte gzip"
        }
    }
}
