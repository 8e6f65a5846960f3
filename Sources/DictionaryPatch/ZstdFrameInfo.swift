import ListFormat

/// What a zstd frame's headers say, read without decoding it (RFC 8878 §3.1.1): enough to refuse a
/// frame whose window or declared size is over the device's bounds before any decoder allocates,
/// and to tell a truncated patch from a corrupt one whatever decoder the app supplies.
public struct ZstdFrameInfo: Equatable, Sendable {
    /// The memory a decoder must keep for back-references; the frame content size for single-segment frames.
    public var windowBytes: UInt64
    /// The declared decoded size, when the frame header carries it.
    public var contentBytes: UInt64?
    /// Decoded bytes the raw and RLE blocks alone produce: a floor under the output whatever the header says.
    public var minimumContentBytes: UInt64
    public var hasChecksum: Bool
    /// 0 when absent: dcz frames use a raw dictionary, which has no ID.
    public var dictionaryID: UInt32
    /// Bytes from the magic number through the checksum.
    public var frameBytes: Int

    static let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
    static let maxBlockBytes = 128 * 1024

    /// Reads the frame at the start of `bytes`, walking its block headers to its end.
    /// - Throws: `.truncated` when `bytes` ends inside the frame, `.corrupt` for anything RFC 8878 forbids
    ///   (wrong magic, reserved bits or block type, a block larger than its maximum, bytes after the frame).
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(PatchError) -> ZstdFrameInfo {
        var reader = Reader(bytes: bytes)
        guard let head = reader.take(4) else {
            throw .truncated("the zstd frame is missing (\(bytes.count) bytes after the dcz header)")
        }
        guard Array(head) == magic else {
            throw .corrupt(
                "the bytes after the dcz header are not a zstd frame (magic \(hex(Array(head))), expected 28b52ffd)")
        }
        guard let descriptor = reader.byte() else { throw truncatedHeader }
        let sizeFlag = Int(descriptor >> 6)
        let singleSegment = descriptor & 0x20 != 0
        guard descriptor & 0x08 == 0 else { throw .corrupt("the zstd frame header sets its reserved bit") }
        let hasChecksum = descriptor & 0x04 != 0
        let dictionaryIDBytes = [0, 1, 2, 4][Int(descriptor & 0x03)]
        var window: UInt64 = 0
        if !singleSegment {
            guard let w = reader.byte() else { throw truncatedHeader }
            let base = UInt64(1) << (10 + UInt64(w >> 3))
            window = base + base / 8 * UInt64(w & 0x07)
        }
        guard let dictionaryID = reader.littleEndian(dictionaryIDBytes) else { throw truncatedHeader }
        let sizeBytes = [singleSegment ? 1 : 0, 2, 4, 8][sizeFlag]
        guard let size = reader.littleEndian(sizeBytes) else { throw truncatedHeader }
        let contentBytes: UInt64? = sizeBytes == 0 ? nil : (sizeBytes == 2 ? size + 256 : size)
        if singleSegment { window = contentBytes ?? 0 }

        var minimum: UInt64 = 0
        while true {
            guard let header = reader.littleEndian(3) else {
                throw .truncated("the zstd frame ends inside a block header")
            }
            let last = header & 1 != 0
            let type = (header >> 1) & 3
            let size = header >> 3
            guard size <= UInt64(maxBlockBytes) else {
                throw .corrupt("a zstd block of \(size) bytes exceeds the 128 KiB block maximum")
            }
            switch type {
            case 0:
                minimum += size
                guard reader.take(Int(size)) != nil else { throw truncatedBlock }
            case 1:
                minimum += size
                guard reader.take(1) != nil else { throw truncatedBlock }
            case 2: guard reader.take(Int(size)) != nil else { throw truncatedBlock }
            default: throw .corrupt("the zstd frame uses the reserved block type 3")
            }
            if last { break }
        }
        if hasChecksum, reader.take(4) == nil { throw .truncated("the zstd frame ends before its checksum") }
        guard reader.offset == bytes.count else {
            throw .corrupt("\(bytes.count - reader.offset) bytes follow the zstd frame; a dcz body holds one frame")
        }
        return ZstdFrameInfo(
            windowBytes: window, contentBytes: contentBytes, minimumContentBytes: minimum,
            hasChecksum: hasChecksum, dictionaryID: UInt32(dictionaryID), frameBytes: reader.offset)
    }

    private static let truncatedHeader = PatchError.truncated("the zstd frame ends inside its header")
    private static let truncatedBlock = PatchError.truncated("the zstd frame ends inside a block")

    private static func hex(_ bytes: [UInt8]) -> String { SHA256Digest.hex(bytes) }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
            guard count <= bytes.count - offset else { return nil }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
        }

        mutating func byte() -> UInt8? { take(1).map { $0[0] } }

        mutating func littleEndian(_ count: Int) -> UInt64? {
            guard let raw = take(count) else { return nil }
            var value: UInt64 = 0
            for (shift, byte) in raw.enumerated() { value |= UInt64(byte) << (8 * UInt64(shift)) }
            return value
        }
    }
}
