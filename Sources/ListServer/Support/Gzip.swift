import CNIOShim
import Foundation

/// gzip through zlib. Compression is deterministic (no timestamp, fixed OS byte) so every origin
/// publishes byte-identical `.gz` siblings.
enum Gzip {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func compress(_ bytes: [UInt8], level: Int32 = 9) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var count = 0
        let status = bytes.withUnsafeBufferPointer { shim_gzip($0.baseAddress, $0.count, level, &out, &count) }
        guard status == 0, let out else { throw Failure(description: "gzip compression failed (zlib status \(status))") }
        defer { free(out) }
        return Array(UnsafeBufferPointer(start: out, count: count))
    }

    /// Inflates gzip or zlib bytes, refusing to produce more than `limit` bytes.
    static func decompress(_ bytes: [UInt8], limit: Int) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var count = 0
        let status = bytes.withUnsafeBufferPointer { shim_gunzip($0.baseAddress, $0.count, limit, &out, &count) }
        switch status {
        case 0:
            defer { free(out) }
            return Array(UnsafeBufferPointer(start: out, count: count))
        case -2:
            throw Failure(description: "gzip body inflates to more than \(limit) bytes")
        case -3:
            throw Failure(description: "gzip body is truncated")
        default:
            throw Failure(description: "gzip body is corrupt")
        }
    }
}
