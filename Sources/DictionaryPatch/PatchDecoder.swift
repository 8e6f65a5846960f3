import Foundation
import ListFormat

/// Applies a dcz patch to the version a device holds, with every bound RFC 9842 and the manifest give:
/// the header's dictionary hash must be the held version's SHA-256, the zstd window at most
/// max(8 MiB, 1.25 × held), the output exactly the manifest entry's `bytes` (and its `sha256`, when given).
/// Nothing is decoded before the headers pass, and the decoder never gets room for more than `bytes` + 1.
public struct PatchDecoder: Sendable {
    public var decompressor: any RawDictionaryDecompressor

    public init(decompressor: any RawDictionaryDecompressor) {
        self.decompressor = decompressor
    }

    #if canImport(CZstdShim)
        /// libzstd through the shim (Linux).
        public init() {
            self.init(decompressor: LibzstdDecompressor())
        }
    #endif

    /// The new version's bytes.
    /// - Parameters:
    ///   - patch: the dcz body (40-byte header, then one zstd frame).
    ///   - held: the identity bytes of the version the device holds (the dictionary).
    ///   - expectedBytes: the manifest entry's `bytes`.
    ///   - expectedSHA256: the manifest entry's `sha256` (lowercase hex), checked when given.
    public func apply(
        _ patch: Data, to held: Data, expectedBytes: Int,
        expectedSHA256: String? = nil
    ) throws(PatchError) -> Data {
        let header = try DCZHeader.parse(patch)
        let heldDigest = SHA256Digest.of(held)
        guard header.dictionarySHA256 == heldDigest else {
            throw .wrongBase(
                patchDictionary: SHA256Digest.hex(header.dictionarySHA256), held: SHA256Digest.hex(heldDigest))
        }
        let frame = Data(patch.dropFirst(DCZHeader.length))
        let limits = PatchLimits.rfc9842(dictionaryBytes: held.count, outputBytes: expectedBytes)
        let info = try frame.withUnsafeBytes { raw in Result { () throws(PatchError) in try ZstdFrameInfo.parse(raw) } }
            .get()
        try Self.check(info, against: limits)

        let decoded: Data
        do {
            decoded = try decompressor.decompress(frame: frame, dictionary: held, limits: limits)
        } catch {
            switch error {
            case .outputLimitExceeded: throw .tooLarge(limit: expectedBytes, declared: info.contentBytes)
            case .windowTooLarge: throw .windowTooLarge(window: info.windowBytes, limit: limits.maxWindowBytes)
            case .truncated: throw .truncated("the zstd frame ends before its content does")
            case .corrupt(let detail): throw .corrupt(detail)
            case .outOfMemory: throw .corrupt("the decoder ran out of memory")
            }
        }
        guard decoded.count <= expectedBytes else { throw .tooLarge(limit: expectedBytes, declared: info.contentBytes) }
        guard decoded.count == expectedBytes else {
            throw .sizeMismatch(expected: expectedBytes, decoded: decoded.count)
        }
        if let expectedSHA256 {
            let digest = SHA256Digest.hex(SHA256Digest.of(decoded))
            guard digest == expectedSHA256 else { throw .digestMismatch(expected: expectedSHA256, decoded: digest) }
        }
        return decoded
    }

    /// The checks the frame's headers allow before any decoding.
    static func check(_ info: ZstdFrameInfo, against limits: PatchLimits) throws(PatchError) {
        guard info.dictionaryID == 0 else {
            throw .corrupt(
                "the zstd frame names dictionary ID \(info.dictionaryID); dcz uses a raw dictionary, which has none")
        }
        guard info.windowBytes <= UInt64(limits.maxWindowBytes) else {
            throw .windowTooLarge(window: info.windowBytes, limit: limits.maxWindowBytes)
        }
        if let declared = info.contentBytes {
            guard declared <= UInt64(limits.outputBytes) else {
                throw .tooLarge(limit: limits.outputBytes, declared: declared)
            }
            guard declared == UInt64(limits.outputBytes) else {
                throw .sizeMismatch(expected: limits.outputBytes, decoded: Int(declared))
            }
        }
        guard info.minimumContentBytes <= UInt64(limits.outputBytes) else {
            throw .tooLarge(limit: limits.outputBytes, declared: info.contentBytes)
        }
    }
}
