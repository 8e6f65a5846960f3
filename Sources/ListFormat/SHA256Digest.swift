import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#elseif canImport(CCryptoShim)
    import CCryptoShim
#endif

/// SHA-256 and its lowercase hex, the one owner for both sides: published files are named and
/// checked by it, RFC 9842 names dictionaries by it, and a minisign key id is its prefix.
/// CryptoKit on Apple platforms, libcrypto through CNIOShim on Linux.
public enum SHA256Digest {
    public static func of(_ bytes: some DataProtocol) -> [UInt8] {
        #if canImport(CryptoKit)
            return Array(SHA256.hash(data: Data(bytes)))
        #else
            var digest = [UInt8](repeating: 0, count: 32)
            let hashed: Void? = bytes.withContiguousStorageIfAvailable { buffer in
                digest.withUnsafeMutableBufferPointer { shim_sha256(buffer.baseAddress, buffer.count, $0.baseAddress) }
            }
            if hashed == nil {
                let contiguous = bytes as? Data ?? Data(bytes)
                contiguous.withUnsafeBytes { raw in
                    digest.withUnsafeMutableBufferPointer { shim_sha256(raw.baseAddress, raw.count, $0.baseAddress) }
                }
            }
            return digest
        #endif
    }

    /// The lowercase hex SHA-256 of `bytes`: the form the manifest, file names and ETags use.
    public static func hex(of bytes: some DataProtocol) -> String { hex(of(bytes)) }

    /// Whether `text` has the manifest's form: 64 lowercase hex digits.
    public static func isWellFormedHex(_ text: String) -> Bool { bytes(hex: text) != nil }

    private static let digits = Array("0123456789abcdef".utf8)

    /// Lowercase hex of any bytes, the form the manifest uses.
    public static func hex(_ digest: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(digest.count * 2)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The 32 bytes of a 64-digit lowercase hex digest, or nil when `text` is not one.
    public static func bytes(hex text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count == 64 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        var out = [UInt8]()
        out.reserveCapacity(32)
        var index = 0
        while index < 64 {
            guard let high = nibble(chars[index]), let low = nibble(chars[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }
}
