import CNIOShim

/// SHA-256 from OpenSSL's libcrypto: content hashes name published files and their ETags.
enum SHA256 {
    static func digest<Bytes: ContiguousBytes>(_ bytes: Bytes) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        bytes.withUnsafeBytes { raw in
            out.withUnsafeMutableBufferPointer { shim_sha256(raw.baseAddress, raw.count, $0.baseAddress) }
        }
        return out
    }

    /// Lowercase hex digest, the form the manifest uses.
    static func hex<Bytes: ContiguousBytes>(_ bytes: Bytes) -> String {
        Hex.encode(digest(bytes))
    }
}

enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

import Foundation
