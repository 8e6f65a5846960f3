import Foundation
import ListFormat

/// `/status`'s `signing` object: the key an app pins and the state of the served manifest's
/// signature, so an operator sees (and `/metrics` alerts on) an expiry before devices refuse the set.
package struct SigningStatus: Codable, Sendable, Equatable {
    /// The minisign public key, base64 (`RWQ…`): what an app pins and `minisign -P` takes.
    package var publicKey: String
    package var keyId: String
    /// Of the served manifest; nil until a signed set is served.
    package var generation: Int?
    /// RFC 3339, from the served manifest.
    package var expires: String?
    /// When the served manifest's signature was written.
    var signedAt: Date?
    /// The key id the served manifest's signature names (differs from `keyId` until a new key has signed).
    package var signedByKeyId: String?

    package init(signer: ManifestSigner, content: SiteContent?) {
        self.init(publicKey: signer.key.publicKey, content: content)
    }

    /// A follower shows the primary's key (the trusted key that signed the served manifest), so it
    /// can be followed in turn with the key its /status gives.
    package init(publicKey key: MinisignPublicKey, content: SiteContent?) {
        publicKey = key.base64
        keyId = "\(key.keyID)"
        guard let entry = content?.manifest, let manifest = try? Manifest.decode(Data(entry.identity)) else { return }
        generation = manifest.generation
        expires = manifest.expires
        if let signature = content?.signatures[PublishedSignature.name(forManifest: entry.sha256)] {
            signedAt = signature.lastModified
            signedByKeyId = PublishedSignature(manifestSHA256: entry.sha256, bytes: signature.identity).parsed.map {
                "\($0.keyID)"
            }
        }
    }

    package var expiryDate: Date? { expires.flatMap(ManifestSigner.parseTime) }
}
