import ListFormat

/// Why a patch could not be applied. Every case means: fall back to the full list; the held version
/// is untouched. The descriptions say what was expected and what arrived.
public enum PatchError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The patch ends early (a partial download, a cut connection).
    case truncated(String)
    /// The body does not start with the dcz header: not a patch at all (an HTML error page, a gzip file).
    case notDCZ(leadingBytes: [UInt8])
    /// The patch was made against another version than the one held.
    case wrongBase(patchDictionary: String, held: String)
    /// The zstd frame is damaged or not what dcz allows.
    case corrupt(String)
    /// The frame would decode to more than the expected size: a decompression bomb or a wrong manifest.
    case tooLarge(limit: Int, declared: UInt64?)
    /// The frame asks for more back-reference memory than RFC 9842 obliges a device to give.
    case windowTooLarge(window: UInt64, limit: Int)
    /// The frame decoded to fewer bytes than the manifest's `bytes`.
    case sizeMismatch(expected: Int, decoded: Int)
    /// The decoded bytes do not have the SHA-256 the manifest names.
    case digestMismatch(expected: String, decoded: String)

    public var description: String {
        switch self {
        case .truncated(let detail):
            return "truncated dcz patch: \(detail); fetch it again or fetch the full list"
        case .notDCZ(let leading):
            return
                "not a dcz patch: it starts with \(SHA256Digest.hex(leading)), not 5e2a4d1820000000 (the dcz header); check the URL and the server's Content-Type"
        case .wrongBase(let patch, let held):
            return
                "dcz patch made against \(patch), but the held version is \(held); use the patch whose 'from' is the held version, or the full list"
        case .corrupt(let detail):
            return "corrupt dcz patch: \(detail)"
        case .tooLarge(let limit, let declared):
            let what = declared.map { "declares \($0) bytes" } ?? "decodes to more"
            return
                "dcz patch \(what) than the \(limit) bytes the manifest expects (a decompression bomb or a stale manifest); it was not decoded further"
        case .windowTooLarge(let window, let limit):
            return
                "dcz patch needs a \(window)-byte zstd window, above the \(limit) bytes RFC 9842 allows for this dictionary (max(8 MiB, 1.25 × dictionary)); re-encode it with a smaller window"
        case .sizeMismatch(let expected, let decoded):
            return "dcz patch decoded to \(decoded) bytes, the manifest expects \(expected)"
        case .digestMismatch(let expected, let decoded):
            return "dcz patch decoded to bytes with SHA-256 \(decoded), the manifest names \(expected)"
        }
    }
}
