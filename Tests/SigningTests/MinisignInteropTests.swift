import Foundation
import ListSync
import ManifestSigning
import TestSupport
import Testing

/// Debian's minisign 0.11 as the independent implementation, in both directions: it verifies what we
/// sign, and our verifier accepts what it signs with `-l` (legacy `Ed`).
@Suite struct MinisignInteropTests {
    let comment = "generation:42\texpires:2026-12-15T00:00:00Z"

    @Test func minisignVerifiesOurSignatureAndRejectsAChangedByte() throws {
        let scratch = ScratchDirectory("signing")
        let written = try SigningKeyFile.generate(inDirectory: scratch.sub("keys"))
        let manifest = sampleManifest()
        let manifestPath = try scratch.write("manifest.json", manifest)
        let signaturePath = try scratch.write(
            "manifest.minisig", try written.key.sign(manifest, trustedComment: comment).fileBytes)

        let byBase64 = try ExternalTool.minisign([
            "-V", "-P", written.key.publicKey.base64, "-m", manifestPath, "-x", signaturePath,
        ])
        #expect(byBase64.status == 0, "minisign -V -P refused our signature: \(byBase64.output)")
        #expect(byBase64.output.contains("Trusted comment: \(comment)"))

        let byFile = try ExternalTool.minisign(["-Vm", manifestPath, "-p", written.publicKeyPath, "-x", signaturePath])
        #expect(
            byFile.status == 0, "minisign -V -p \(SigningKeyFile.publicKeyName) refused our signature: \(byFile.output)"
        )

        try scratch.write("manifest.json", flippingOneByte(manifest))
        let tampered = try ExternalTool.minisign([
            "-V", "-P", written.key.publicKey.base64, "-m", manifestPath, "-x", signaturePath,
        ])
        #expect(tampered.status != 0, "minisign accepted a manifest with one byte changed")
        #expect(tampered.output.contains("Signature verification failed"), "\(tampered.output)")
    }

    @Test func minisignRejectsOurSignatureWithAChangedTrustedComment() throws {
        let scratch = ScratchDirectory("signing")
        let key = try ManifestSigningKey.generate()
        let manifest = sampleManifest()
        let manifestPath = try scratch.write("manifest.json", manifest)
        let signed = String(decoding: try key.sign(manifest, trustedComment: "generation:41").fileBytes, as: UTF8.self)
        let signaturePath = try scratch.write(
            "manifest.minisig", Data(signed.replacingOccurrences(of: "generation:41", with: "generation:49").utf8))
        let result = try ExternalTool.minisign([
            "-V", "-P", key.publicKey.base64, "-m", manifestPath, "-x", signaturePath,
        ])
        #expect(result.status != 0)
        #expect(result.output.contains("Comment signature verification failed"), "\(result.output)")
    }

    /// Our key id for a minisign key is the one minisign itself prints, so operators can match them.
    @Test func keyIDReadsAsMinisignPrintsIt() throws {
        let scratch = ScratchDirectory("signing")
        let generated = try ExternalTool.minisign(["-G", "-W", "-p", scratch.sub("k.pub"), "-s", scratch.sub("k.key")])
        try #require(generated.status == 0, "\(generated.output)")
        let text = String(decoding: try scratch.read("k.pub"), as: UTF8.self)
        let printed = try #require(text.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        // minisign 0.11 prints the number without leading zeros; ours has all 16 digits, as newer minisign does.
        let ours = try MinisignPublicKey(text).keyID.description
        #expect(ours.count == 16)
        #expect(UInt64(ours, radix: 16) == UInt64(printed, radix: 16), "ours \(ours), minisign's \(printed)")
        // And our .pub file's comment names our key id the same way.
        let ourKey = try ManifestSigningKey.generate().publicKey
        #expect(ourKey.fileText.hasPrefix("untrusted comment: minisign public key \(ourKey.keyID)\n"))
        #expect(try MinisignPublicKey(ourKey.fileText) == ourKey)
        #expect(try MinisignPublicKey(ourKey.base64) == ourKey)
    }

    @Test func ourVerifierAcceptsMinisignsLegacySignatureAndRejectsTampering() throws {
        let scratch = ScratchDirectory("signing")
        let signer = try MinisignKeyPair(in: scratch, name: "signer")
        let other = try MinisignKeyPair(in: scratch, name: "other")
        let manifest = sampleManifest()
        let manifestPath = try scratch.write("manifest.json", manifest)
        let signed = try ExternalTool.minisign([
            "-S", "-l", "-s", signer.secretKeyPath, "-m", manifestPath, "-x", scratch.sub("m.minisig"), "-t", comment,
        ])
        try #require(signed.status == 0, "\(signed.output)")
        let signature = try scratch.read("m.minisig")

        let verifier = try SignatureVerifier(trustedKeys: [signer.publicKeyText])
        let verified = try verifier.verify(manifest, signatureFile: signature)
        #expect(verified.trustedComment == comment)
        #expect(verified.keyID == signer.publicKey.keyID)

        // Rotation: with the old and the new key trusted, either order, the signature still verifies.
        #expect(
            try SignatureVerifier(trustedKeys: [other.publicKeyText, signer.publicKeyText]).verify(
                manifest, signatureFile: signature) == verified)

        #expect(throws: SignatureError.badSignature(signer.publicKey.keyID)) {
            try verifier.verify(flippingOneByte(manifest), signatureFile: signature)
        }
        #expect(throws: SignatureError.unknownKeyID(signer.publicKey.keyID, trusted: [other.publicKey.keyID])) {
            try SignatureVerifier(trustedKeys: [other.publicKeyText]).verify(manifest, signatureFile: signature)
        }
        let text = String(decoding: signature, as: UTF8.self)
        let changedComment = Data(text.replacingOccurrences(of: "generation:42", with: "generation:43").utf8)
        #expect(changedComment != signature)
        #expect(throws: SignatureError.badTrustedComment(signer.publicKey.keyID)) {
            try verifier.verify(manifest, signatureFile: changedComment)
        }
        // The untrusted comment is not signed: editing it changes nothing.
        let changedUntrusted = Data(
            text.replacingOccurrences(of: "signature from minisign secret key", with: "edited").utf8)
        #expect(try verifier.verify(manifest, signatureFile: changedUntrusted) == verified)
    }

    /// A key with minisign's id but other key bytes: the key id matches, the signature must not.
    @Test func aForeignKeyWearingTheTrustedKeyIDIsRejected() throws {
        let scratch = ScratchDirectory("signing")
        let signer = try MinisignKeyPair(in: scratch, name: "signer")
        let manifestPath = try scratch.write("manifest.json", sampleManifest())
        let signed = try ExternalTool.minisign([
            "-S", "-l", "-s", signer.secretKeyPath, "-m", manifestPath, "-x", scratch.sub("m.minisig"), "-t", comment,
        ])
        try #require(signed.status == 0, "\(signed.output)")
        let impostor = try MinisignPublicKey(
            keyID: signer.publicKey.keyID, key: ManifestSigningKey.generate().publicKey.key)
        #expect(throws: SignatureError.badSignature(signer.publicKey.keyID)) {
            try SignatureVerifier(trustedKeys: [impostor]).verify(
                try scratch.read("manifest.json"), signatureFile: try scratch.read("m.minisig"))
        }
    }

    @Test func prehashedSignatureIsRefusedAndSaysWhy() throws {
        let scratch = ScratchDirectory("signing")
        let signer = try MinisignKeyPair(in: scratch, name: "signer")
        let manifest = sampleManifest()
        let manifestPath = try scratch.write("manifest.json", manifest)
        let signed = try ExternalTool.minisign([
            "-S", "-s", signer.secretKeyPath, "-m", manifestPath, "-x", scratch.sub("m.minisig"),
        ])
        try #require(signed.status == 0, "\(signed.output)")
        let verifier = try SignatureVerifier(trustedKeys: [signer.publicKeyText])
        let error = #expect(throws: SignatureError.self) {
            try verifier.verify(manifest, signatureFile: try scratch.read("m.minisig"))
        }
        #expect(error == .unsupportedAlgorithm("ED"))
        #expect(error?.description.contains("only the legacy \"Ed\"") == true)
        #expect(error?.description.contains("minisign -S -l") == true)
    }
}

/// A key pair made by `minisign -G -W` (no password).
struct MinisignKeyPair {
    let secretKeyPath: String
    let publicKeyText: String
    let publicKey: MinisignPublicKey

    init(in scratch: ScratchDirectory, name: String) throws {
        secretKeyPath = scratch.sub("\(name).key")
        let result = try ExternalTool.minisign(["-G", "-W", "-p", scratch.sub("\(name).pub"), "-s", secretKeyPath])
        guard result.status == 0 else {
            throw ExternalTool.ToolMissing(description: "minisign -G failed: \(result.output)")
        }
        publicKeyText = String(decoding: try scratch.read("\(name).pub"), as: UTF8.self)
        publicKey = try MinisignPublicKey(publicKeyText)
    }
}
