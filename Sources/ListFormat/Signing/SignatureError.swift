/// Why a signature or a trusted key was refused, in words an operator or app developer can act on.
public enum SignatureError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A verifier needs at least one key to trust.
    case noTrustedKeys
    /// Two different trusted keys carry the same key id, so a signature could not say which one it needs.
    case conflictingKeyID(MinisignKeyID)
    case malformedPublicKey(String)
    case malformedSignature(String)
    /// Any algorithm other than minisign's legacy `Ed` (the prehashed `ED`, or an unknown one).
    case unsupportedAlgorithm(String)
    case unknownKeyID(MinisignKeyID, trusted: [MinisignKeyID])
    /// The Ed25519 signature does not match the message bytes.
    case badSignature(MinisignKeyID)
    /// The global signature does not match the trusted comment.
    case badTrustedComment(MinisignKeyID)

    public var description: String {
        switch self {
        case .noTrustedKeys:
            return
                "no trusted public keys given: pass the operator's minisign public key (the RWQ… line of its .pub file)"
        case .conflictingKeyID(let id):
            return
                "two different trusted public keys share key id \(id); a signature could not say which to use: trust only one of them"
        case .malformedPublicKey(let reason):
            return "not a minisign Ed25519 public key: \(reason)"
        case .malformedSignature(let reason):
            return "not a minisign signature file: \(reason)"
        case .unsupportedAlgorithm(let found) where found == "ED":
            return
                "the signature uses minisign's prehashed algorithm \"ED\" (Ed25519 over a BLAKE2b-512 digest); only the legacy \"Ed\" "
                + "algorithm (Ed25519 over the file's bytes) is accepted, because CryptoKit verifies it on Apple platforms without BLAKE2b "
                + "and one algorithm keeps one code path everywhere: sign with `minisign -S -l` or `listserver`'s signer"
        case .unsupportedAlgorithm(let found):
            return
                "the signature's algorithm \"\(found)\" is unknown; only minisign's legacy \"Ed\" (Ed25519) is accepted"
        case .unknownKeyID(let id, let trusted):
            return
                "signed by key \(id), which is not a trusted key (trusted: \(trusted.map(\.description).joined(separator: ", "))); "
                + "if the operator rotated keys, add the new public key to the trusted keys"
        case .badSignature(let id):
            return
                "the signature by key \(id) does not match these bytes: they were changed after signing, or the signature is for other bytes"
        case .badTrustedComment(let id):
            return
                "the trusted comment's signature by key \(id) does not match: the trusted comment was changed after signing"
        }
    }
}
