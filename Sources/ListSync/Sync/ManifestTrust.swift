import Foundation

/// What a device accepts as a manifest: signed by one of the trusted keys (several, for rotation),
/// not older than the one it holds, not expired. Unsigned manifests only when explicitly allowed.
public struct ManifestTrust: Sendable {
    /// nil: no key pinned (only valid with `allowsUnsigned`).
    public let verifier: SignatureVerifier?
    /// Accept a manifest without a signature file (a server that does not sign, or a test set).
    public let allowsUnsigned: Bool

    /// Requires a valid signature by one of `trustedKeys`, or, with `allowUnsigned`, none at all
    /// (a signature that is present must still verify).
    public init(trustedKeys: [MinisignPublicKey], allowUnsigned: Bool = false) throws {
        verifier = trustedKeys.isEmpty ? nil : try SignatureVerifier(trustedKeys: trustedKeys)
        allowsUnsigned = allowUnsigned
        if verifier == nil, !allowUnsigned { throw SignatureError.noTrustedKeys }
    }

    /// Accepts unsigned manifests and checks no signature: for servers that do not sign.
    public static let unsignedAllowed = ManifestTrust(verifier: nil, allowsUnsigned: true)

    private init(verifier: SignatureVerifier?, allowsUnsigned: Bool) {
        self.verifier = verifier
        self.allowsUnsigned = allowsUnsigned
    }

    /// `signatures/<sha256 of the manifest bytes>.minisig`, relative to the manifest URL.
    public static func signatureURL(forManifest bytes: Data, at manifestURL: URL) -> URL? {
        URL(string: PublishedFileNames.signature(forManifest: SHA256Digest.hex(of: bytes)), relativeTo: manifestURL)?
            .absoluteURL
    }

    /// Checks downloaded manifest bytes before anything in them is used: the signature (fetched
    /// with `fetchSignature`, which returns the status and body), then generation and expiry
    /// against `held` (the manifest the device applied last). Public so a following origin refuses
    /// exactly what a device refuses.
    public func check(
        _ body: Data, url manifestURL: URL, held: Manifest?, now: Date,
        fetchSignature: (URL) async throws -> (status: Int, body: Data)
    ) async throws {
        let url = manifestURL.absoluteString
        guard let signatureURL = Self.signatureURL(forManifest: body, at: manifestURL) else {
            throw ManifestTrustError.signatureUnavailable(url: url, reason: "no signature URL can be formed")
        }
        var signedGeneration: Int?
        var signed = false
        if let verifier {
            let (status, signature) = try await fetchSignature(signatureURL)
            if status == 404 || status == 410 {
                guard allowsUnsigned else { throw ManifestTrustError.unsigned(url: url) }
            } else {
                guard status == 200 else {
                    throw ManifestTrustError.signatureUnavailable(
                        url: signatureURL.absoluteString, reason: "HTTP \(status)")
                }
                guard signature.count <= MinisignSignature.maximumFileBytes else {
                    throw ManifestTrustError.signatureUnavailable(
                        url: signatureURL.absoluteString, reason: "\(signature.count) bytes, over the cap")
                }
                do {
                    let verified = try verifier.verify(body, signatureFile: signature)
                    signed = true
                    signedGeneration = TrustedComment(parsing: verified.trustedComment).generation
                } catch let error as SignatureError {
                    throw ManifestTrustError.badSignature(url: url, reason: "\(error)")
                }
            }
        }
        // Only now is the manifest read, and only for its generation and expiry.
        guard let manifest = try? Manifest.decode(body) else { return }  // ManifestValidator reports it
        if let signedGeneration, manifest.generation != signedGeneration {
            throw ManifestTrustError.badSignature(
                url: url,
                reason:
                    "the signed generation \(signedGeneration) is not the manifest's \(manifest.generation.map(String.init) ?? "none")"
            )
        }
        // A signed manifest, or one that states a generation, must not be older than the held one.
        // An unsigned manifest without a generation (reached only when unsigned sets are allowed)
        // has nothing to compare: allowing unsigned sets gives up rollback protection with them.
        if signed || manifest.generation != nil, let heldGeneration = held?.generation {
            let generation = manifest.generation ?? 0
            if generation < heldGeneration {
                throw ManifestTrustError.rollback(url: url, generation: generation, held: heldGeneration)
            }
        }
        try Self.checkNotExpired(manifest, url: url, now: now)
    }

    /// A manifest past its `expires` is refused (also the one a 304 confirms: a frozen mirror).
    static func checkNotExpired(_ manifest: Manifest, url: String, now: Date) throws {
        guard let text = manifest.expires else { return }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        guard let expires = formatter.date(from: text) else {
            throw ManifestTrustError.expired(url: url, expires: text)
        }
        if expires <= now { throw ManifestTrustError.expired(url: url, expires: text) }
    }
}

/// Why a manifest was refused. The previously synced set stays as it was in every case.
public enum ManifestTrustError: Error, CustomStringConvertible, Sendable, Equatable {
    case unsigned(url: String)
    case badSignature(url: String, reason: String)
    case signatureUnavailable(url: String, reason: String)
    case rollback(url: String, generation: Int, held: Int)
    case expired(url: String, expires: String)

    public var description: String {
        switch self {
        case .unsigned(let url):
            return "manifest \(url) is not signed (no signatures/<sha256>.minisig); refused, previous lists kept "
                + "(pass --allow-unsigned only for a server that does not sign)"
        case .badSignature(let url, let reason):
            return "manifest \(url) failed signature verification: \(reason); refused, previous lists kept"
        case .signatureUnavailable(let url, let reason):
            return "signature \(url) could not be fetched: \(reason); previous lists kept"
        case .rollback(let url, let generation, let held):
            return
                "manifest \(url) has generation \(generation), older than the \(held) this device holds (a replayed or stale copy); refused, previous lists kept"
        case .expired(let url, let expires):
            return
                "manifest \(url) expired at \(expires) (a frozen mirror, or the origin stopped re-signing); refused, previous lists kept"
        }
    }
}
