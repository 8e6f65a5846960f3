import Foundation

/// A zstd decoder that uses a raw-content dictionary, as dcz requires. On Linux,
/// `LibzstdDecompressor` (libzstd through the shim) is provided; on Apple platforms an app wraps the
/// zstd it ships (the zstd project has a Swift package: `ZSTD_DCtx_refPrefix` plus
/// `ZSTD_d_windowLogMax` and a fixed-size output buffer do it).
///
/// `PatchDecoder` has already checked the frame's headers against `limits` before calling; an
/// implementation must still never write more than `limits.outputBytes + 1` bytes nor keep a larger
/// window than `limits.maxWindowBytes`, because the headers' blocks can lie.
public protocol RawDictionaryDecompressor: Sendable {
    /// Decodes the one zstd frame in `frame` with `dictionary` as raw prefix. Returns up to
    /// `limits.outputBytes + 1` bytes; more than `outputBytes` means the frame is too large.
    func decompress(frame: Data, dictionary: Data, limits: PatchLimits) throws(DecompressionFailure) -> Data
}

/// What a `RawDictionaryDecompressor` reports; `PatchDecoder` turns it into a `PatchError`.
public enum DecompressionFailure: Error, Equatable, Sendable {
    case outputLimitExceeded
    case windowTooLarge
    case truncated
    case corrupt(String)
    case outOfMemory
}
