import Foundation
#if canImport(CryptoKit)
import CryptoKit
#else
import CNIOShim
#endif

/// SHA-256 of downloaded bytes, the name under which the device stores a list.
/// CryptoKit on Apple platforms; libcrypto through CNIOShim elsewhere.
enum ContentHash {
    static func sha256Hex(_ data: Data) -> String {
        #if canImport(CryptoKit)
        let digest = Array(SHA256.hash(data: data))
        #else
        var digest = [UInt8](repeating: 0, count: 32)
        data.withUnsafeBytes { raw in
            digest.withUnsafeMutableBufferPointer { shim_sha256(raw.baseAddress, raw.count, $0.baseAddress) }
        }
        #endif
        return hex(digest)
    }

    private static let digits = Array("0123456789abcdef".utf8)

    static func hex(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `text` has the manifest's form: 64 lowercase hex digits.
    static func isWellFormed(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 64 && bytes.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
