import Foundation
import ListFormat

/// The operator's signing key: an Ed25519 private key and its minisign identity.
///
/// The key id is the first 8 bytes of SHA-256 over the raw public key, not random bytes kept beside the
/// key: a PKCS#8 file has no field for it, so deriving it keeps it stable across restarts and origins
/// sharing one key, and makes a key from `openssl genpkey` usable as is. A key id only picks which
/// trusted key to check with; acceptance always rests on the Ed25519 signature.
public struct ManifestSigningKey: Sendable {
    public let privateKey: Ed25519PrivateKey
    public let publicKey: MinisignPublicKey

    public var keyID: MinisignKeyID { publicKey.keyID }

    public init(privateKey: Ed25519PrivateKey) throws {
        self.privateKey = privateKey
        self.publicKey = try MinisignPublicKey(keyID: Self.keyID(for: privateKey.publicKey), key: privateKey.publicKey)
    }

    public static func generate() throws -> ManifestSigningKey {
        try ManifestSigningKey(privateKey: .generate())
    }

    /// SHA-256(raw public key), first 8 bytes.
    public static func keyID(for publicKey: Data) throws -> MinisignKeyID {
        try MinisignKeyID(bytes: Data(SHA256Digest.of(publicKey).prefix(MinisignKeyID.byteCount)))
    }

    /// A detached minisign signature over `message` in the legacy `Ed` variant (what `minisign -S -l`
    /// makes): Ed25519 over the message bytes, and a global signature over that signature and
    /// `trustedComment` (one line, at most 8,175 bytes).
    public func sign(_ message: Data, trustedComment: String, untrustedComment: String? = nil) throws
        -> MinisignSignature
    {
        let signature = try privateKey.sign(message)
        let global = try privateKey.sign(
            MinisignSignature.globalMessage(signature: signature, trustedComment: trustedComment))
        return try MinisignSignature(
            untrustedComment: untrustedComment ?? "signature from listserver key \(keyID)",
            keyID: keyID, signature: signature, trustedComment: trustedComment, globalSignature: global)
    }
}
