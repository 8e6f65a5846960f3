import CCryptoShim
import Foundation

/// An Ed25519 private key held by libcrypto. Immutable once made, so one instance may sign from
/// several threads (each signature uses its own libcrypto context).
public final class Ed25519PrivateKey: @unchecked Sendable {
    private let handle: OpaquePointer
    /// The raw 32-byte public key.
    public let publicKey: Data

    private init(handle: OpaquePointer) throws {
        var raw = [UInt8](repeating: 0, count: 32)
        guard shim_ed25519_public_key(handle, &raw) == SHIM_ED25519_OK else {
            shim_ed25519_key_free(handle)
            throw SigningKeyError.crypto("could not read the public half of an Ed25519 key")
        }
        self.handle = handle
        self.publicKey = Data(raw)
    }

    deinit { shim_ed25519_key_free(handle) }

    /// A fresh key from the system's CSPRNG.
    public static func generate() throws -> Ed25519PrivateKey {
        guard let handle = shim_ed25519_generate() else {
            throw SigningKeyError.crypto("libcrypto could not generate an Ed25519 key")
        }
        return try Ed25519PrivateKey(handle: handle)
    }

    /// Reads an unencrypted PKCS#8 PEM private key (`-----BEGIN PRIVATE KEY-----`), as written by
    /// `pkcs8PEM()`, `openssl genpkey -algorithm ed25519` or `openssl pkey`.
    public convenience init(pem: [UInt8]) throws {
        var handle: OpaquePointer?
        let result = pem.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                shim_ed25519_read_private_pem($0.baseAddress, $0.count, &handle)
            }
        }
        switch result {
        case SHIM_ED25519_OK:
            guard let handle else { throw SigningKeyError.crypto("libcrypto returned no key") }
            try self.init(handle: handle)
        case SHIM_ED25519_ERR_NOT_ED25519:
            throw SigningKeyError.notEd25519
        case SHIM_ED25519_ERR_NOT_PEM:
            throw SigningKeyError.notPEM
        default:
            throw SigningKeyError.crypto("libcrypto failed reading a PEM key")
        }
    }

    /// The key as unencrypted PKCS#8 PEM text. The caller keeps these bytes away from logs.
    public func pkcs8PEM() throws -> [UInt8] {
        var buffer: UnsafeMutablePointer<CChar>?
        var length = 0
        guard shim_ed25519_write_private_pem(handle, &buffer, &length) == SHIM_ED25519_OK, let buffer else {
            throw SigningKeyError.crypto("libcrypto could not write the key as PEM")
        }
        defer { shim_ed25519_wipe_free(buffer, length) }
        return buffer.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// Ed25519 over the message bytes themselves (RFC 8032 "pure" Ed25519, no prehash): 64 bytes.
    public func sign(_ message: Data) throws -> Data {
        var signature = [UInt8](repeating: 0, count: 64)
        let result = message.withUnsafeBytes { raw in
            shim_ed25519_sign(handle, raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &signature)
        }
        guard result == SHIM_ED25519_OK else { throw SigningKeyError.crypto("libcrypto could not sign") }
        return Data(signature)
    }
}
