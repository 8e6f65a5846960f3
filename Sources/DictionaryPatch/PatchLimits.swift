/// How much a device lets one patch cost it: the zstd window (RFC 9842 §5: a `dcz` decoder must
/// accept windows up to max(8 MB, 1.25 × dictionary), at most 128 MB, and may refuse larger ones)
/// and the decoded size (the manifest entry's `bytes`).
public struct PatchLimits: Equatable, Sendable {
    public var maxWindowBytes: Int
    public var outputBytes: Int

    public static let minimumWindowBytes = 8 << 20
    public static let maximumWindowBytes = 128 << 20

    public init(maxWindowBytes: Int, outputBytes: Int) {
        self.maxWindowBytes = maxWindowBytes
        self.outputBytes = outputBytes
    }

    /// RFC 9842's window for a dictionary of `dictionaryBytes`, and exactly `outputBytes` out.
    public static func rfc9842(dictionaryBytes: Int, outputBytes: Int) -> PatchLimits {
        PatchLimits(maxWindowBytes: windowLimit(dictionaryBytes: dictionaryBytes), outputBytes: outputBytes)
    }

    /// max(8 MiB, 1.25 × dictionary), capped at 128 MiB.
    public static func windowLimit(dictionaryBytes: Int) -> Int {
        min(maximumWindowBytes, max(minimumWindowBytes, dictionaryBytes + dictionaryBytes / 4))
    }

    /// The smallest window log whose power of two covers `maxWindowBytes` (ZSTD_d_windowLogMax).
    public var windowLog: Int {
        var log = 10
        while (1 << log) < maxWindowBytes { log += 1 }
        return log
    }
}
