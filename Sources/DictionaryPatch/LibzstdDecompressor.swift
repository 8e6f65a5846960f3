#if canImport(CZstdShim)
    import CZstdShim
    import Foundation

    /// `RawDictionaryDecompressor` over the system libzstd (Debian `libzstd-dev`), through CNIOShim.
    /// Streams into one buffer of `limits.outputBytes + 1` bytes and sets `ZSTD_d_windowLogMax`.
    public struct LibzstdDecompressor: RawDictionaryDecompressor {
        public init() {}

        public func decompress(frame: Data, dictionary: Data, limits: PatchLimits) throws(DecompressionFailure) -> Data
        {
            let capacity = limits.outputBytes + 1
            var status: Int32 = 0
            var message: UnsafePointer<CChar>?
            var output = Data(count: capacity)
            var produced = 0
            frame.withUnsafeBytes { frameBytes in
                dictionary.withUnsafeBytes { dictionaryBytes in
                    output.withUnsafeMutableBytes { out in
                        status = shim_zstd_decompress_with_prefix(
                            dictionaryBytes.bindMemory(to: UInt8.self).baseAddress, dictionaryBytes.count,
                            frameBytes.bindMemory(to: UInt8.self).baseAddress, frameBytes.count,
                            Int32(limits.windowLog),
                            out.bindMemory(to: UInt8.self).baseAddress, capacity, &produced, &message)
                    }
                }
            }
            switch status {
            case SHIM_ZSTD_OK:
                output.count = produced
                return output
            case SHIM_ZSTD_OUTPUT_LIMIT: throw .outputLimitExceeded
            case SHIM_ZSTD_WINDOW_TOO_LARGE: throw .windowTooLarge
            case SHIM_ZSTD_TRUNCATED: throw .truncated
            case SHIM_ZSTD_NO_MEMORY: throw .outOfMemory
            default: throw .corrupt(message.map { String(cString: $0) } ?? "libzstd refused the frame")
            }
        }
    }
#endif
