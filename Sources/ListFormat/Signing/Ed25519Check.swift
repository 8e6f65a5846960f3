import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#else
    import CCryptoShim
#endif

/// Ed25519 verification: CryptoKit on Apple platforms, libcrypto through CNIOShim elsewhere.
enum Ed25519Check {
    /// Whether `signature` (64 bytes) is `publicKey`'s (32 bytes, raw) signature over `message`.
    static func isValid(signature: Data, of message: Data, publicKey: Data) -> Bool {
        guard signature.count == 64, publicKey.count == 32 else { return false }
        #if canImport(CryptoKit)
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
            return key.isValidSignature(signature, for: message)
        #else
            let key = [UInt8](publicKey)
            let bytes = [UInt8](signature)
            let body = [UInt8](message)
            return body.withUnsafeBufferPointer { shim_ed25519_verify(key, $0.baseAddress, $0.count, bytes) } == 1
        #endif
    }
}
