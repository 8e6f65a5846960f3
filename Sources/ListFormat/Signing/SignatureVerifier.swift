import Foundation

/// What a valid signature vouches for beyond the bytes: which key made it, and its trusted comment.
public struct VerifiedSignature: Equatable, Sendable {
    public let keyID: MinisignKeyID
    public let trustedComment: String
}

/// Checks detached minisign signatures (legacy `Ed`) against a set of trusted public keys. More than one
/// key lets an operator rotate: an app trusts the old and the new key until every origin signs with the new.
public struct SignatureVerifier: Sendable {
    public let trustedKeys: [MinisignPublicKey]

    public init(trustedKeys: [MinisignPublicKey]) throws {
        guard !trustedKeys.isEmpty else { throw SignatureError.noTrustedKeys }
        var byID: [MinisignKeyID: MinisignPublicKey] = [:]
        var unique: [MinisignPublicKey] = []
        for key in trustedKeys {
            if let known = byID[key.keyID] {
                if known != key { throw SignatureError.conflictingKeyID(key.keyID) }
                continue
            }
            byID[key.keyID] = key
            unique.append(key)
        }
        self.trustedKeys = unique
    }

    /// Trusted keys as minisign public-key text: base64 lines (`RWQ…`) or whole `.pub` files.
    public init(trustedKeys: [String]) throws {
        try self.init(trustedKeys: trustedKeys.map { try MinisignPublicKey($0) })
    }

    /// Verifies `signatureFile` (the bytes of a `.minisig` file) over `message`, and returns its trusted
    /// comment. Checks, in order: the file's form, the algorithm, that the key id is trusted, the signature
    /// over the message, and the global signature over the trusted comment.
    public func verify(_ message: Data, signatureFile: Data) throws -> VerifiedSignature {
        let parsed = try MinisignSignature(parsing: signatureFile)
        guard let key = trustedKeys.first(where: { $0.keyID == parsed.keyID }) else {
            throw SignatureError.unknownKeyID(parsed.keyID, trusted: trustedKeys.map(\.keyID))
        }
        guard Ed25519Check.isValid(signature: parsed.signature, of: message, publicKey: key.key) else {
            throw SignatureError.badSignature(parsed.keyID)
        }
        guard Ed25519Check.isValid(signature: parsed.globalSignature, of: parsed.globalMessage, publicKey: key.key)
        else {
            throw SignatureError.badTrustedComment(parsed.keyID)
        }
        return VerifiedSignature(keyID: parsed.keyID, trustedComment: parsed.trustedComment)
    }
}
